/**
 * @module TrafficStore: the Durable Object (one per table) that adds up every isolate's request counts
 * per minute, cluster and backend, so the status page shows the edge's traffic, not one isolate's. Isolates
 * send their counts in batches (traffic-counter.ts); rows older than an hour are dropped. While a canary runs it
 * also adds up each version's requests and errors under the canary's id, and it is where the canary is decided
 * (`analyse`): being one object for the table, it decides each canary once, and every later question, from any
 * Cron run in any location, gets that same decision back (`canary_ends`, first write wins).
 */
import { DurableObject } from "cloudflare:workers";
import { analyseCanary, type CanaryEnd, type CanaryFigures, type CanaryPointer, type CanaryVerdict, EDGE_ANALYSIS } from "../table/canary";
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

/** Requests of one minute that one version answered while canary `canary` ran. */
export interface CanaryRow {
  canary: string;
  version: string;
  minute: number;
  requests: number;
  errors: number;
}

/** One tick's analysis: the figures, the verdict, and the canary's end when it has one (this tick's or an earlier). */
export interface CanaryReport {
  figures: CanaryFigures;
  verdict: CanaryVerdict;
  ended?: CanaryEnd;
}

const KEEP_MINUTES = 60;
/** A canary's counts are kept a day: a canary that waits long for traffic still has all of its figures. */
const KEEP_CANARY_MINUTES = 24 * 60;

const minuteText = (minute: number): string => new Date(minute * 60_000).toISOString();

export class TrafficStore extends DurableObject<Env> {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    const sql = ctx.storage.sql;
    sql.exec(`CREATE TABLE IF NOT EXISTS traffic (
      minute INTEGER NOT NULL,
      cluster TEXT NOT NULL,
      backend TEXT NOT NULL,
      requests INTEGER NOT NULL,
      errors INTEGER NOT NULL,
      PRIMARY KEY (minute, cluster, backend)
    )`);
    sql.exec(`CREATE TABLE IF NOT EXISTS canary_traffic (
      canary TEXT NOT NULL,
      version TEXT NOT NULL,
      minute INTEGER NOT NULL,
      requests INTEGER NOT NULL,
      errors INTEGER NOT NULL,
      PRIMARY KEY (canary, version, minute)
    )`);
    sql.exec(`CREATE TABLE IF NOT EXISTS canary_ends (
      canary TEXT PRIMARY KEY,
      outcome TEXT NOT NULL,
      at TEXT NOT NULL,
      by TEXT NOT NULL,
      reason TEXT NOT NULL
    )`);
  }

  /** Adds one isolate's batch of counts; answers how each canary the batch names ended, if it did. */
  add(rows: TrafficRow[], canaryRows: CanaryRow[] = []): { id: string; end: CanaryEnd }[] {
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
    for (const r of canaryRows)
      sql.exec(
        `INSERT INTO canary_traffic (canary, version, minute, requests, errors) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (canary, version, minute) DO UPDATE SET requests = requests + excluded.requests, errors = errors + excluded.errors`,
        r.canary,
        r.version,
        r.minute,
        r.requests,
        r.errors,
      );
    const newest = Math.max(...rows.map((r) => r.minute), ...canaryRows.map((r) => r.minute));
    sql.exec("DELETE FROM traffic WHERE minute < ?", newest - KEEP_MINUTES);
    sql.exec("DELETE FROM canary_traffic WHERE minute < ?", newest - KEEP_CANARY_MINUTES);
    const ends: { id: string; end: CanaryEnd }[] = [];
    for (const id of new Set(canaryRows.map((r) => r.canary))) {
      const end = this.endOf(id);
      if (end) ends.push({ id, end });
    }
    return ends;
  }

  /** Every row from `sinceMinute` on. */
  since(sinceMinute: number): TrafficRow[] {
    return this.ctx.storage.sql
      .exec<TrafficRow & Record<string, SqlStorageValue>>("SELECT * FROM traffic WHERE minute >= ? ORDER BY minute", sinceMinute)
      .toArray();
  }

  /** How canary `id` ended, if it did. */
  endOf(id: string): CanaryEnd | null {
    const row = this.ctx.storage.sql
      .exec<{ outcome: string; at: string; by: string; reason: string }>(
        "SELECT outcome, at, by, reason FROM canary_ends WHERE canary = ?",
        id,
      )
      .toArray()[0];
    if (!row) return null;
    const outcome = row.outcome === "promoted" ? "promoted" : row.outcome === "superseded" ? "superseded" : "reverted";
    return { outcome, at: row.at, by: row.by, reason: row.reason };
  }

  /** Both versions' requests and errors since the canary's first minute. */
  figures(canary: CanaryPointer, current: string, now: number): CanaryFigures {
    const from = Math.floor(Date.parse(canary.startedAt) / 60_000);
    const totals = this.ctx.storage.sql
      .exec<{ version: string; requests: number; errors: number }>(
        "SELECT version, SUM(requests) AS requests, SUM(errors) AS errors FROM canary_traffic WHERE canary = ? AND minute >= ? GROUP BY version",
        canary.id,
        from,
      )
      .toArray();
    const of = (version: string) => {
      const t = totals.find((r) => r.version === version);
      return { version, requests: t?.requests ?? 0, errors: t?.errors ?? 0 };
    };
    return {
      canary: of(canary.version),
      current: of(current),
      fromMinute: minuteText(from),
      toMinute: minuteText(Math.floor(now / 60_000)),
    };
  }

  /**
   * One Cron tick's analysis of `canary` against `current`: the figures and the verdict, and, when the verdict is
   * to promote or revert, the decision recorded. A canary decided before keeps that decision, whatever these
   * figures say: Cron runs in two locations, one reading a pointer older than the other's, cannot decide twice.
   */
  analyse(canary: CanaryPointer, current: string, now: number): CanaryReport {
    const figures = this.figures(canary, current, now);
    const verdict = analyseCanary(canary.analysis, figures, now - Date.parse(canary.startedAt));
    const earlier = this.endOf(canary.id);
    if (earlier || verdict.decision === "wait") return { figures, verdict, ...(earlier ? { ended: earlier } : {}) };
    const outcome = verdict.decision === "promote" ? "promoted" : "reverted";
    this.ctx.storage.sql.exec(
      "INSERT OR IGNORE INTO canary_ends (canary, outcome, at, by, reason) VALUES (?, ?, ?, ?, ?)",
      canary.id,
      outcome,
      new Date(now).toISOString(),
      EDGE_ANALYSIS,
      verdict.reason,
    );
    return { figures, verdict, ended: this.endOf(canary.id)! };
  }
}
