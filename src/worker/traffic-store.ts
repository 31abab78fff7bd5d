/**
 * @module TrafficStore: the Durable Object (one per table) that adds up every isolate's request counts
 * per minute, cluster and backend, so the status page shows the edge's traffic, not one isolate's. Isolates
 * send their counts in batches (traffic-counter.ts); rows older than an hour are dropped.
 */
import { DurableObject } from "cloudflare:workers";
import type { Env } from "./env";

/** Requests of one minute to one backend in one cluster (cluster and backend "" for the gateway's own answers). */
export interface TrafficRow {
  minute: number;
  cluster: string;
  backend: string;
  requests: number;
  /** Answered with a 5xx (by the upstream or by the gateway). */
  errors: number;
}

const KEEP_MINUTES = 60;

export class TrafficStore extends DurableObject<Env> {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    ctx.storage.sql.exec(`CREATE TABLE IF NOT EXISTS traffic (
      minute INTEGER NOT NULL,
      cluster TEXT NOT NULL,
      backend TEXT NOT NULL,
      requests INTEGER NOT NULL,
      errors INTEGER NOT NULL,
      PRIMARY KEY (minute, cluster, backend)
    )`);
  }

  /** Adds one isolate's batch of counts. */
  add(rows: TrafficRow[]): void {
    const sql = this.ctx.storage.sql;
    for (const r of rows)
      sql.exec(
        `INSERT INTO traffic (minute, cluster, backend, requests, errors) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (minute, cluster, backend) DO UPDATE SET requests = requests + excluded.requests, errors = errors + excluded.errors`,
        r.minute,
        r.cluster,
        r.backend,
        r.requests,
        r.errors,
      );
    const newest = Math.max(...rows.map((r) => r.minute));
    sql.exec("DELETE FROM traffic WHERE minute < ?", newest - KEEP_MINUTES);
  }

  /** Every row from `sinceMinute` on. */
  since(sinceMinute: number): TrafficRow[] {
    return this.ctx.storage.sql
      .exec<TrafficRow & Record<string, SqlStorageValue>>("SELECT * FROM traffic WHERE minute >= ? ORDER BY minute", sinceMinute)
      .toArray();
  }
}
