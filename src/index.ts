/** @module Worker entry: wiring only. */
import { createApp } from "./worker/app";
import type { Env } from "./worker/env";
import { runHealthChecks } from "./worker/health-checks";
import { loadRouteTable } from "./worker/table-loader";

export { SessionStore } from "./session/session-store";

const app = createApp();

export default {
  fetch: app.fetch,
  /** Cron Trigger: active health checks of the served table's endpoints. */
  async scheduled(_controller: ScheduledController, env: Env, ctx: ExecutionContext): Promise<void> {
    const served = await loadRouteTable(env);
    if (served) ctx.waitUntil(runHealthChecks(env, served, Date.now()));
  },
} satisfies ExportedHandler<Env>;
