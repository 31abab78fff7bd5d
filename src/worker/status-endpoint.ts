/**
 * @module `GET /.well-known/kedge/status`: the served table's version, its backends and their endpoints'
 * state as this isolate sees it (active checks and passive ejection). Off unless the KEDGE_STATUS_TOKEN
 * secret is set; the bearer token is compared in constant time.
 */
import { sameBytes } from "../session/constant-time";
import { KV_KEYS, KV_READ } from "../table/kv-keys";
import type { CanaryPointer, CanaryRecord } from "../table/canary";
import { parseCanaryRecord, parseHealthRecord } from "../table/parse-route-table";
import type { CompiledCluster, HealthRecord } from "../table/route-table";
import type { Env } from "./env";
import type { StatusPageData } from "./status-page";
import { minuteOf } from "./traffic-counter";
import type { TrafficRow } from "./traffic-store";
import type { HealthView } from "./health-view";
import type { ServedTable } from "./served-table";

export const STATUS_PATH = "/.well-known/kedge/status";

const encoder = new TextEncoder();

/** Equal strings, judged in constant time: both are hashed first, so even their lengths stay hidden. */
export async function tokensEqual(given: string, expected: string): Promise<boolean> {
  const [a, b] = await Promise.all([given, expected].map((t) => crypto.subtle.digest("SHA-256", encoder.encode(t))));
  return sameBytes(new Uint8Array(a!), new Uint8Array(b!));
}

/** What the table says of its clusters (draining, disabled, priority, a stale snapshot), by name. */
export function servedClusters(served: ServedTable): Record<string, CompiledCluster> {
  return served.inMemory()[0]?.table.clusters ?? {};
}

export function statusBody(served: ServedTable, health: HealthView): unknown {
  const tables = served.inMemory();
  const backends = new Map(tables.flatMap((p) => Object.values(p.table.backends).map((b) => [b.id, b] as const)));
  const whole = served.shards ? undefined : tables[0]?.table;
  return {
    table: {
      name: served.name,
      version: served.version,
      ...(whole ? { rules: whole.rules.length, backends: Object.keys(whole.backends).length } : {}),
      // A sharded table lists the backends of the shards this isolate has loaded.
      ...(served.shards ? { shards: served.shards } : {}),
    },
    clusters: servedClusters(served),
    backends: Object.fromEntries(
      [...backends.values()].map((b) => [
        b.id,
        b.endpoints.map((e) => ({
          id: e.id,
          ready: e.ready,
          serving: e.serving,
          terminating: e.terminating,
          weight: e.weight,
          ...health.describe(e),
        })),
      ]),
    ),
  };
}

/** Minutes of traffic the status endpoint shows. */
const TRAFFIC_MINUTES = 15;

/**
 * What every isolate shares: the TrafficStore's counts of the last minutes, the KV health record and, while a
 * canary runs, its record (the last Cron analysis: both versions' figures and the verdict). A store that cannot
 * be read leaves its part empty rather than failing the page.
 */
export async function sharedStatus(
  env: Env,
  table: string,
  canary: CanaryPointer | null = null,
): Promise<{ minutes: number; traffic: TrafficRow[]; health: HealthRecord | null; canary: CanaryRecord | null }> {
  const traffic = env.TRAFFIC as Env["TRAFFIC"] | undefined;
  const [rows, record, canaryRecord] = await Promise.all([
    traffic
      ? traffic
          .get(traffic.idFromName(table))
          .since(minuteOf(Date.now()) - TRAFFIC_MINUTES + 1)
          .catch(() => [])
      : Promise.resolve([]),
    env.ROUTES.get(KV_KEYS.health(table), KV_READ.changing).catch(() => null),
    canary ? env.ROUTES.get(KV_KEYS.canary(table, canary.id), KV_READ.changing).catch(() => null) : Promise.resolve(null),
  ]);
  // Before the first Cron analysis the record is absent: the pointer's canary alone is shown.
  const canaryNow = canary ? (parseCanaryRecord(canaryRecord) ?? { canary, current: "" }) : null;
  return { minutes: TRAFFIC_MINUTES, traffic: rows as TrafficRow[], health: parseHealthRecord(record), canary: canaryNow };
}

/** The backends of the tables this isolate holds, for the page: endpoints with readiness and passive ejection. */
export function pageBackends(served: ServedTable, health: HealthView): StatusPageData["backends"] {
  const backends = new Map(served.inMemory().flatMap((p) => Object.values(p.table.backends).map((b) => [b.id, b] as const)));
  return [...backends.values()]
    .sort((a, b) => a.id.localeCompare(b.id))
    .map((b) => ({
      id: b.id,
      endpoints: b.endpoints.map((e) => ({ id: e.id, cluster: e.cluster, ready: e.ready, ejected: health.describe(e).ejected })),
    }));
}
