/**
 * @module The isolate's request counts, sent to the TrafficStore in batches: at most one Durable Object
 * call per flush interval (KEDGE_TRAFFIC_FLUSH_SECONDS, 10 s by default) per isolate, never on the request
 * path (waitUntil). Counts an isolate holds when it is evicted are lost: the page's numbers are a floor.
 * While a canary runs, each request is also counted for its version under the canary's id (the analysis
 * compares the two versions), and the store's reply says whether that canary ended: the isolate then serves
 * the winner at once, without waiting for KV to carry the news to its location.
 */
import type { CanaryEnd } from "../table/canary";
import type { Env } from "./env";
import type { RequestRecord } from "./request-record";
import type { CanaryRow, TrafficRow } from "./traffic-store";

const DEFAULT_FLUSH_SECONDS = 10;

export const minuteOf = (ms: number): number => Math.floor(ms / 60_000);

/** Told of a canary's end by the store: (canary id, how it ended). */
export type LearnEnd = (id: string, end: CanaryEnd) => void;

export class TrafficCounter {
  private rows = new Map<string, TrafficRow>();
  private canaryRows = new Map<string, CanaryRow>();
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
    const failed = (record.status ?? 0) >= 500;
    if (failed) row.errors++;
    if (record.canary && record.table)
      this.countVersion(record.canary, record.table.slice(record.table.lastIndexOf("@") + 1), minute, failed);
  }

  private countVersion(canary: string, version: string, minute: number, failed: boolean): void {
    const key = `${canary}\n${version}\n${minute}`;
    let row = this.canaryRows.get(key);
    if (!row) {
      row = { canary, version, minute, requests: 0, errors: 0 };
      this.canaryRows.set(key, row);
    }
    row.requests++;
    if (failed) row.errors++;
  }

  /** Sends the counts when the flush interval has passed; the send runs after the response (waitUntil). */
  flush(env: Env, table: string, now: number, waitUntil: (p: Promise<unknown>) => void, learn?: LearnEnd): void {
    const seconds = Number((env as { KEDGE_TRAFFIC_FLUSH_SECONDS?: string }).KEDGE_TRAFFIC_FLUSH_SECONDS ?? DEFAULT_FLUSH_SECONDS);
    if (now - this.lastFlush < seconds * 1000) return;
    const sending = this.send(env, table, now, learn);
    if (sending) waitUntil(sending);
  }

  /** Sends whatever is counted now (the Cron run does, before its canary analysis); null when there is nothing. */
  send(env: Env, table: string, now: number, learn?: LearnEnd): Promise<void> | null {
    if (this.rows.size === 0 && this.canaryRows.size === 0) return null;
    // A Worker deployed from an older wrangler config has no TRAFFIC binding: it counts nothing.
    const traffic = env.TRAFFIC as Env["TRAFFIC"] | undefined;
    if (!traffic) return null;
    const batch = [...this.rows.values()];
    const versions = [...this.canaryRows.values()];
    this.rows = new Map();
    this.canaryRows = new Map();
    this.lastFlush = now;
    return traffic
      .get(traffic.idFromName(table))
      .add(batch, versions)
      .then((ends) => {
        for (const { id, end } of ends) learn?.(id, end);
      })
      .catch((error: unknown) => console.warn("kedge: traffic counts not stored", error));
  }
}
