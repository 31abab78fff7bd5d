/** @module Worker entry: wiring only. */
import { createApp } from "./worker/app";
import type { Env } from "./worker/env";
import { runHealthChecks } from "./worker/health-checks";
import { loadRouteTable } from "./worker/table-loader";

export { SessionStore } from "./session/session-store";
export { HealthStore } from "./worker/health-store";
export { TrafficStore } from "./worker/traffic-store";

const app = createApp();

export default {
  fetch: app.fetch,
  /** Cron Trigger: active health checks of the served table's endpoints. */
  async scheduled(controller: ScheduledController, env: Env, ctx: ExecutionContext): Promise<void> {
    const loading = loadRouteTable(env, (promise) => ctx.waitUntil(promise));
    const served = loading instanceof Promise ? await loading : loading;
    if (served) ctx.waitUntil(runHealthChecks(env, served, controller.scheduledTime));
  },
} satisfies ExportedHandler<Env>;
