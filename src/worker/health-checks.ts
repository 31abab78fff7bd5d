/**
 * @module Active health checks, run by the Worker's Cron Trigger (`scheduled`, once a minute): probe the
 * endpoints of every backend that has a check and hand the results to the table's HealthStore, which
 * keeps the counts and writes KV when the unhealthy set changes. Each run probes at most
 * `maxEndpointsPerRun` endpoints (subrequest limits), taking turns: run n probes the n-th slice of the
 * endpoints in id order, so every endpoint is probed every ceil(endpoints / maxEndpointsPerRun) minutes.
 * At most PROBE_CONCURRENCY probes are open at once (a Worker invocation opens at most six connections at
 * a time), and each probe's timeout starts when it is sent, so a queued probe never times out unstarted.
 */
import type { CompiledBackend, CompiledEndpoint, CompiledHealthCheck, EgressPolicy } from "../table/route-table";
import type { Env } from "./env";
import type { HealthUpdate, ProbeResult } from "./health-store";
import type { HealthView } from "./health-view";
import type { ServedTable } from "./served-table";
import { egressAllowed, type Link, probe } from "./upstream";

/** Workers allow six simultaneous open connections per invocation; more wait in a queue. */
export const PROBE_CONCURRENCY = 6;

interface Target {
  endpoint: CompiledEndpoint;
  check: CompiledHealthCheck;
}

/**
 * Every endpoint with a check, once, in id order (an endpoint several backends share takes its first backend's
 * check): of the current version, and of a canary's too, whose endpoints take traffic as well.
 */
async function targetsOf(served: ServedTable, canary?: ServedTable): Promise<{ targets: Target[]; egress?: EgressPolicy }> {
  const { backends, egress } = await served.healthTargets();
  const targets = new Map<string, Target>();
  const add = (backend: CompiledBackend, allowed?: EgressPolicy) => {
    if (!backend.healthCheck) return;
    for (const endpoint of backend.endpoints)
      if (!targets.has(endpoint.id) && egressAllowed(endpoint, allowed)) targets.set(endpoint.id, { endpoint, check: backend.healthCheck });
  };
  for (const backend of backends) add(backend, egress);
  if (canary) {
    const other = await canary.healthTargets();
    for (const backend of other.backends) add(backend, other.egress);
  }
  return { targets: [...targets.values()].sort((a, b) => (a.endpoint.id < b.endpoint.id ? -1 : 1)), egress };
}

/** This run's turn: `limit` endpoints starting at the run's offset, wrapping around. */
export function dueThisRun<T>(targets: T[], limit: number, run: number): T[] {
  if (targets.length <= limit) return targets;
  const start = (run * limit) % targets.length;
  return Array.from({ length: limit }, (_, i) => targets[(start + i) % targets.length]!);
}

/** Runs `work` over `items` with at most `concurrency` at once; results in item order. */
export async function inTurns<T, R>(items: T[], concurrency: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await work(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
  return results;
}

/**
 * One round of checks for the served table (and a canary's, when one runs); returns what the health store made of
 * it (null: no checks configured), and tells `health`.
 */
export async function runHealthChecks(
  env: Env,
  served: ServedTable,
  scheduledTime: number,
  health: HealthView,
  canary?: ServedTable,
): Promise<HealthUpdate | null> {
  if (!served.healthChecks) return null;
  const { targets, egress } = await targetsOf(served, canary);
  const run = Math.floor(scheduledTime / 60_000);
  const due = dueThisRun(targets, served.healthChecks.maxEndpointsPerRun, run);
  const link: Link = { bindings: env, egress };
  const results = await inTurns(due, PROBE_CONCURRENCY, async ({ endpoint, check }): Promise<ProbeResult> => {
    const status = await probe(link, endpoint, check.path, check.timeoutMs);
    return {
      id: endpoint.id,
      ok: status !== null && check.expectedStatuses.includes(status),
      healthyThreshold: check.healthyThreshold,
      unhealthyThreshold: check.unhealthyThreshold,
    };
  });
  const store = env.HEALTH.get(env.HEALTH.idFromName(served.name));
  const update = await store.record(
    served.name,
    results,
    targets.map((t) => t.endpoint.id),
    scheduledTime,
  );
  health.setActive(new Set(update.unhealthy));
  return update;
}
