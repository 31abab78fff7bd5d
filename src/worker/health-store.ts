/**
 * @module HealthStore: the Durable Object (one per table) that keeps the active checks' counts, so two
 * Cron runs never lose each other's updates. It stores only endpoints that are not plainly healthy (a
 * failure counted, or unhealthy and recovering): an endpoint without a row is healthy, so a quiet day
 * writes no rows. It writes KV `health/<table>` only when the set of unhealthy endpoints changes, which
 * every isolate reads with the table pointer.
 */
import { DurableObject } from "cloudflare:workers";
import { KV_KEYS } from "../table/kv-keys";
import type { HealthRecord } from "../table/route-table";
import type { Env } from "./env";

const SCHEMA_VERSION = 1;

/** One probe's result, with the thresholds of its endpoint's check. */
export interface ProbeResult {
  id: string;
  ok: boolean;
  healthyThreshold: number;
  unhealthyThreshold: number;
}

export interface HealthUpdate {
  /** Endpoints that are unhealthy now, sorted. */
  unhealthy: string[];
  /** Whether this run changed that set (and so wrote KV). */
  changed: boolean;
}

interface Row extends Record<string, SqlStorageValue> {
  id: string;
  healthy: number;
  successes: number;
  failures: number;
}

export class HealthStore extends DurableObject<Env> {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    ctx.blockConcurrencyWhile(async () => this.migrate());
  }

  private migrate(): void {
    const sql = this.ctx.storage.sql;
    sql.exec("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)");
    const row = sql.exec<{ version: number }>("SELECT version FROM schema_version LIMIT 1").toArray()[0];
    if (row) return;
    sql.exec(`CREATE TABLE endpoints (
      id TEXT PRIMARY KEY,
      healthy INTEGER NOT NULL,
      successes INTEGER NOT NULL,
      failures INTEGER NOT NULL
    )`);
    // What KV holds: the unhealthy set last written, so an unchanged set is not written again.
    sql.exec("CREATE TABLE published (unhealthy TEXT NOT NULL)");
    sql.exec("INSERT INTO schema_version (version) VALUES (?)", SCHEMA_VERSION);
  }

  /**
   * Counts one Cron run's probes and returns the unhealthy set. `known` lists every endpoint the table
   * checks: state of endpoints that left the table is dropped.
   */
  async record(table: string, results: ProbeResult[], known: string[], now: number): Promise<HealthUpdate> {
    const sql = this.ctx.storage.sql;
    for (const r of results) {
      const row = sql.exec<Row>("SELECT * FROM endpoints WHERE id = ?", r.id).toArray()[0];
      const next = nextState(row, r);
      if (!next) sql.exec("DELETE FROM endpoints WHERE id = ?", r.id);
      else if (!row || row.healthy !== next.healthy || row.successes !== next.successes || row.failures !== next.failures)
        sql.exec(
          "INSERT OR REPLACE INTO endpoints (id, healthy, successes, failures) VALUES (?, ?, ?, ?)",
          r.id,
          next.healthy,
          next.successes,
          next.failures,
        );
    }
    const inTable = new Set(known);
    for (const { id } of sql.exec<{ id: string }>("SELECT id FROM endpoints").toArray())
      if (!inTable.has(id)) sql.exec("DELETE FROM endpoints WHERE id = ?", id);
    const unhealthy = sql
      .exec<{ id: string }>("SELECT id FROM endpoints WHERE healthy = 0 ORDER BY id")
      .toArray()
      .map((r) => r.id);
    const text = JSON.stringify(unhealthy);
    const published = sql.exec<{ unhealthy: string }>("SELECT unhealthy FROM published").toArray()[0]?.unhealthy;
    if (text === published) return { unhealthy, changed: false };
    const record: HealthRecord = { updatedAt: new Date(now).toISOString(), unhealthy };
    // KV first: if the write fails, the set still differs from what is published and the next run writes it.
    await this.env.ROUTES.put(KV_KEYS.health(table), JSON.stringify(record));
    sql.exec("DELETE FROM published");
    sql.exec("INSERT INTO published (unhealthy) VALUES (?)", text);
    return { unhealthy, changed: true };
  }

  /** The stored rows (tests and diagnostics): endpoints that are not plainly healthy. */
  rows(): Row[] {
    return this.ctx.storage.sql.exec<Row>("SELECT * FROM endpoints ORDER BY id").toArray();
  }
}

/**
 * An endpoint's counts after one probe, or null for "plainly healthy" (no row). Healthy endpoints count
 * failures in a row and turn unhealthy at `unhealthyThreshold`; unhealthy ones count successes in a row
 * and turn healthy at `healthyThreshold`.
 */
function nextState(row: Row | undefined, r: ProbeResult): { healthy: number; successes: number; failures: number } | null {
  const healthy = row ? row.healthy === 1 : true;
  if (healthy) {
    if (r.ok) return null;
    const failures = (row?.failures ?? 0) + 1;
    return failures >= r.unhealthyThreshold ? { healthy: 0, successes: 0, failures: 0 } : { healthy: 1, successes: 0, failures };
  }
  if (!r.ok) return { healthy: 0, successes: 0, failures: 0 };
  const successes = (row?.successes ?? 0) + 1;
  return successes >= r.healthyThreshold ? null : { healthy: 0, successes, failures: 0 };
}
