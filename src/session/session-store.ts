/**
 * @module SessionStore: the Durable Object that holds session pins. One object serves one shard of one
 * rule's sessions (`<scope>#<first character of the id>`), so a busy rule spreads over 64 objects.
 * SQLite storage with a schema version; the Worker passes its clock (`now`) into every call, so expiry
 * follows one clock and tests can move it; an alarm deletes expired sessions.
 */
import { DurableObject } from "cloudflare:workers";
import type { Env } from "../worker/env";
import type { SessionRecord } from "./session-record";
import { expiresAt, isExpired } from "./session-record";

const SCHEMA_VERSION = 2;

interface Row extends Record<string, SqlStorageValue> {
  backend: string;
  endpoint: string;
  created_at: number;
  last_seen: number;
  absolute_ms: number | null;
  idle_ms: number | null;
}

const toRecord = (r: Row): SessionRecord => ({
  backend: r.backend,
  endpoint: r.endpoint,
  createdAt: r.created_at,
  lastSeen: r.last_seen,
  ...(r.absolute_ms !== null ? { absoluteTimeoutMs: r.absolute_ms } : {}),
  ...(r.idle_ms !== null ? { idleTimeoutMs: r.idle_ms } : {}),
});

export class SessionStore extends DurableObject<Env> {
  /** The alarm this object has scheduled (cached to save a storage read per write). */
  private alarmAt: number | null = null;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    ctx.blockConcurrencyWhile(async () => {
      this.migrate();
      this.alarmAt = await ctx.storage.getAlarm();
    });
  }

  private migrate(): void {
    const sql = this.ctx.storage.sql;
    sql.exec("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)");
    const row = sql.exec<{ version: number }>("SELECT version FROM schema_version LIMIT 1").toArray()[0];
    const version = row?.version ?? 0;
    if (version < 2) {
      sql.exec(`CREATE TABLE IF NOT EXISTS sessions (
        id TEXT PRIMARY KEY,
        backend TEXT NOT NULL,
        endpoint TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        last_seen INTEGER NOT NULL,
        absolute_ms INTEGER,
        idle_ms INTEGER,
        expires_at INTEGER
      )`);
      sql.exec("CREATE INDEX IF NOT EXISTS sessions_expires_at ON sessions (expires_at)");
    }
    if (!row) sql.exec("INSERT INTO schema_version (version) VALUES (?)", SCHEMA_VERSION);
    else if (version < SCHEMA_VERSION) sql.exec("UPDATE schema_version SET version = ?", SCHEMA_VERSION);
  }

  /** The storage schema version (used by tests and diagnostics). */
  schemaVersion(): number {
    return this.ctx.storage.sql.exec<{ version: number }>("SELECT version FROM schema_version LIMIT 1").one().version;
  }

  /**
   * The live session `id` as of `now`, or null when unknown or expired. Reading does not extend it: the
   * Worker `touch`es a session once its pinned endpoint has answered.
   */
  lookup(id: string, now: number): SessionRecord | null {
    const row = this.ctx.storage.sql.exec<Row>("SELECT * FROM sessions WHERE id = ?", id).toArray()[0];
    if (!row) return null;
    const record = toRecord(row);
    if (isExpired(record, now)) {
      this.ctx.storage.sql.exec("DELETE FROM sessions WHERE id = ?", id);
      return null;
    }
    return record;
  }

  /**
   * A (written-behind) last-seen update from an isolate whose request the pinned endpoint answered. The
   * first one stores the session: a session is written only once it is used again, and only when it has an
   * idle timeout (the one thing isolates must share), so a client that never returns its token costs nothing.
   */
  async touch(id: string, record: SessionRecord): Promise<void> {
    const row = this.ctx.storage.sql.exec<{ last_seen: number }>("SELECT last_seen FROM sessions WHERE id = ?", id).toArray()[0];
    if (row && row.last_seen >= record.lastSeen) return;
    await this.save(id, record);
  }

  /** How many sessions this object holds (tests and diagnostics). */
  count(): number {
    return this.ctx.storage.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM sessions").one().n;
  }

  override async alarm(): Promise<void> {
    const sql = this.ctx.storage.sql;
    // The alarm stands for its scheduled time, even when it runs a little early (a retried or test-run alarm).
    const asOf = Math.max(Date.now(), this.alarmAt ?? 0);
    sql.exec("DELETE FROM sessions WHERE expires_at IS NOT NULL AND expires_at <= ?", asOf);
    this.alarmAt = null;
    const next = sql.exec<{ at: number | null }>("SELECT MIN(expires_at) AS at FROM sessions").one().at;
    if (next !== null) await this.schedule(next);
  }

  private async save(id: string, r: SessionRecord): Promise<void> {
    const expires = expiresAt(r);
    this.ctx.storage.sql.exec(
      `INSERT INTO sessions (id, backend, endpoint, created_at, last_seen, absolute_ms, idle_ms, expires_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET backend = excluded.backend, endpoint = excluded.endpoint,
         last_seen = excluded.last_seen, expires_at = excluded.expires_at`,
      id,
      r.backend,
      r.endpoint,
      r.createdAt,
      r.lastSeen,
      r.absoluteTimeoutMs ?? null,
      r.idleTimeoutMs ?? null,
      expires,
    );
    if (expires !== null) await this.schedule(expires);
  }

  /** Makes sure an alarm fires no later than `at` (one alarm per object; the earliest expiry wins). */
  private async schedule(at: number): Promise<void> {
    if (this.alarmAt !== null && this.alarmAt <= at) return;
    this.alarmAt = at;
    await this.ctx.storage.setAlarm(at);
  }
}
