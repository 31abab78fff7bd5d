/** @module The Worker's bindings (wrangler.toml) and Hono's environment type. */
import type { SessionStore } from "../session/session-store";

export interface Env {
  /** Route tables pushed by `npm run sync`. */
  ROUTES: KVNamespace;
  /** Session persistence (SQLite-backed Durable Objects). */
  SESSIONS: DurableObjectNamespace<SessionStore>;
  /** Which table to serve: `table/<KEDGE_TABLE>/current`. */
  KEDGE_TABLE?: string;
  /** Seconds between pointer re-reads per isolate (default 5). */
  TABLE_REFRESH_SECONDS?: string;
}

export interface AppEnv {
  Bindings: Env;
  Variables: { requestId: string };
}
