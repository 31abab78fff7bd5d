/**
 * @module `GET /.well-known/kedge/status`: the served table's version, its backends and their endpoints'
 * state as this isolate sees it (active checks and passive ejection). Off unless the KEDGE_STATUS_TOKEN
 * secret is set; the bearer token is compared in constant time.
 */
import { sameBytes } from "../session/constant-time";
import type { HealthView } from "./health-view";
import type { ServedTable } from "./served-table";

export const STATUS_PATH = "/.well-known/kedge/status";

const encoder = new TextEncoder();

/** Equal strings, judged in constant time: both are hashed first, so even their lengths stay hidden. */
export async function tokensEqual(given: string, expected: string): Promise<boolean> {
  const [a, b] = await Promise.all([given, expected].map((t) => crypto.subtle.digest("SHA-256", encoder.encode(t))));
  return sameBytes(new Uint8Array(a!), new Uint8Array(b!));
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
