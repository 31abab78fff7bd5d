/**
 * @module `GET /.well-known/kedge/status`: the served table's version, its backends and their endpoints'
 * state. Off unless the KEDGE_STATUS_TOKEN secret is set; the bearer token is compared in constant time.
 */
import type { PreparedTable } from "../routing/prepared-table";
import { sameBytes } from "../session/constant-time";
import type { OutlierDetector } from "./outlier-detector";

export const STATUS_PATH = "/.well-known/kedge/status";

const encoder = new TextEncoder();

/** Equal strings, judged in constant time: both are hashed first, so even their lengths stay hidden. */
export async function tokensEqual(given: string, expected: string): Promise<boolean> {
  const [a, b] = await Promise.all([given, expected].map((t) => crypto.subtle.digest("SHA-256", encoder.encode(t))));
  return sameBytes(new Uint8Array(a!), new Uint8Array(b!));
}

export function statusBody(prepared: PreparedTable, outliers: OutlierDetector, now: number): unknown {
  const { table } = prepared;
  return {
    table: { name: table.name, version: table.version, rules: table.rules.length, backends: Object.keys(table.backends).length },
    backends: Object.fromEntries(
      Object.values(table.backends).map((b) => [
        b.id,
        b.endpoints.map((e) => ({
          id: e.id,
          ready: e.ready,
          serving: e.serving,
          terminating: e.terminating,
          weight: e.weight,
          ejected: outliers.isEjected(e.id, now),
          healthy: !prepared.unhealthy.has(e.id),
        })),
      ]),
    ),
  };
}
