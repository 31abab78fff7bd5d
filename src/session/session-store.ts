/**
 * @module SessionStore: the Durable Object that will hold session pins (session persistence issue).
 * For now it owns its SQLite schema and version row, so the binding and migration exist from day one.
 */
import { DurableObject } from "cloudflare:workers";
import type { Env } from "../worker/env";

const SCHEMA_VERSION = 1;

export class SessionStore extends DurableObject<Env> {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    ctx.blockConcurrencyWhile(async () => this.migrate());
  }

  private migrate(): void {
    const sql = this.ctx.storage.sql;
    sql.exec("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)");
    const row = sql.exec<{ version: number }>("SELECT version FROM schema_version LIMIT 1").toArray()[0];
    if (!row) sql.exec("INSERT INTO schema_version (version) VALUES (?)", SCHEMA_VERSION);
  }

  /** The storage schema version (used by tests and diagnostics). */
  schemaVersion(): number {
    return this.ctx.storage.sql.exec<{ version: number }>("SELECT version FROM schema_version LIMIT 1").one().version;
  }
}
