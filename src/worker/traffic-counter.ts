/**
 * @module The isolate's request counts, sent to the TrafficStore in batches: at most one Durable Object
 * call per flush interval (KEDGE_TRAFFIC_FLUSH_SECONDS, 10 s by default) per isolate, never on the request
 * path (waitUntil). Counts an isolate holds when it is evicted are lost: the page's numbers are a floor.
 */
import type { Env } from "./env";
import type { RequestRecord } from "./request-record";
import type { TrafficRow } from "./traffic-store";

const DEFAULT_FLUSH_SECONDS = 10;

export const minuteOf = (ms: number): number => Math.floor(ms / 60_000);

export class TrafficCounter {
  private rows = new Map<string, TrafficRow>();
  private lastFlush = 0;

  count(record: RequestRecord, now: number): void {
    const minute = minuteOf(now);
    const cluster = record.cluster ?? "";
    const backend = record.backend ?? "";
    const key = `${minute}\n${cluster}\n${backend}`;
    let row = this.rows.get(key);
    if (!row) {
      row = { minute, cluster, backend, requests: 0, errors: 0 };
      this.rows.set(key, row);
    }
    row.requests++;
    if ((record.status ?? 0) >= 500) row.errors++;
  }

  /** Sends the counts when the flush interval has passed; the send runs after the response (waitUntil). */
  flush(env: Env, table: string, now: number, waitUntil: (p: Promise<unknown>) => void): void {
    const seconds = Number((env as { KEDGE_TRAFFIC_FLUSH_SECONDS?: string }).KEDGE_TRAFFIC_FLUSH_SECONDS ?? DEFAULT_FLUSH_SECONDS);
    if (this.rows.size === 0 || now - this.lastFlush < seconds * 1000) return;
    // A Worker deployed from an older wrangler config has no TRAFFIC binding: it counts nothing.
    const traffic = env.TRAFFIC as Env["TRAFFIC"] | undefined;
    if (!traffic) return;
    const batch = [...this.rows.values()];
    this.rows = new Map();
    this.lastFlush = now;
    waitUntil(
      traffic
        .get(traffic.idFromName(table))
        .add(batch)
        .catch((error: unknown) => console.warn("kedge: traffic counts not stored", error)),
    );
  }
}
