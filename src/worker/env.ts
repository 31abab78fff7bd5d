/**
 * @module The Worker's bindings and Hono's environment type. `Cloudflare.Env` is generated from
 * wrangler.toml by `npm run cf-typegen` into src/worker-configuration.d.ts.
 */

/**
 * ROUTES (route tables), SESSIONS (SessionStore), KEDGE_TABLE (which table), TABLE_REFRESH_SECONDS, and
 * the secrets SESSION_HMAC_KEY and KEDGE_STATUS_TOKEN (`wrangler secret put`; secrets are not in
 * wrangler.toml, so not generated).
 */
import type { RequestRecord } from "./request-record";

export type Env = Cloudflare.Env & { SESSION_HMAC_KEY?: string; KEDGE_STATUS_TOKEN?: string };

export interface AppEnv {
  Bindings: Env;
  Variables: { requestId: string; record?: RequestRecord };
}
