/**
 * @module Active health checks, run by the Worker's Cron Trigger (`scheduled`): probe the endpoints of
 * every backend that has a check, count consecutive successes and failures against the thresholds, and
 * write the result to KV (`health/<table>`), where every isolate reads it with the table pointer.
 * Cron Triggers fire at most once a minute, so that is the check interval; each run probes at most
 * `maxEndpointsPerRun` endpoints (the least recently checked first) to stay within subrequest limits.
 */
import { KV_KEYS, KV_READ } from "../table/kv-keys";
import { parseHealthState } from "../table/parse-route-table";
import type { CompiledEndpoint, CompiledHealthCheck, HealthState } from "../table/route-table";
import type { Env } from "./env";
import type { ServedTable } from "./served-table";
import { egressAllowed, endpointUrl, fetcherFor } from "./upstream-request";

interface Probe {
  endpoint: CompiledEndpoint;
  check: CompiledHealthCheck;
}

async function probe(p: Probe, bindings: object): Promise<boolean> {
  const send = fetcherFor(p.endpoint, bindings);
  if (!send) return false;
  try {
    const response = await send(endpointUrl(p.endpoint, p.check.path), {
      headers: { "user-agent": "kedge-health-check" },
      redirect: "manual",
      signal: AbortSignal.timeout(p.check.timeoutMs),
    });
    await response.body?.cancel();
    return p.check.expectedStatuses.includes(response.status);
  } catch {
    return false;
  }
}

/** One round of checks for the served table; returns the new health record (also written to KV). */
export async function runHealthChecks(env: Env, served: ServedTable, now: number): Promise<HealthState | null> {
  if (!served.healthChecks) return null;
  const previous = parseHealthState(await env.ROUTES.get(KV_KEYS.health(served.name), KV_READ.changing))?.endpoints ?? {};
  const probes = new Map<string, Probe>();
  const { backends, allowedHostnames } = await served.healthTargets();
  for (const backend of backends) {
    if (!backend.healthCheck) continue;
    for (const endpoint of backend.endpoints)
      if (!probes.has(endpoint.id) && egressAllowed(endpoint, allowedHostnames))
        probes.set(endpoint.id, { endpoint, check: backend.healthCheck });
  }
  const due = [...probes.values()]
    .sort((a, b) => (previous[a.endpoint.id]?.checkedAt ?? 0) - (previous[b.endpoint.id]?.checkedAt ?? 0))
    .slice(0, served.healthChecks.maxEndpointsPerRun);
  const results = await Promise.all(due.map(async (p) => [p, await probe(p, env)] as const));
  const endpoints: HealthState["endpoints"] = {};
  // Keep what is known of endpoints still in the table; forget the rest.
  for (const id of probes.keys()) if (previous[id]) endpoints[id] = previous[id];
  for (const [p, ok] of results) {
    const prior = endpoints[p.endpoint.id] ?? { healthy: true, successes: 0, failures: 0, checkedAt: 0 };
    const successes = ok ? prior.successes + 1 : 0;
    const failures = ok ? 0 : prior.failures + 1;
    const healthy = prior.healthy ? failures < p.check.unhealthyThreshold : successes >= p.check.healthyThreshold;
    endpoints[p.endpoint.id] = { healthy, successes, failures, checkedAt: now };
  }
  const state: HealthState = { updatedAt: new Date(now).toISOString(), endpoints };
  await env.ROUTES.put(KV_KEYS.health(served.name), JSON.stringify(state));
  served.setUnhealthy(new Set(Object.entries(endpoints).flatMap(([id, e]) => (e.healthy ? [] : [id]))));
  return state;
}
