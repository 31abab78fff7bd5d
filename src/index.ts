/** @module Worker entry: wiring only. One isolate object holds what requests and Cron runs share. */
import { createApp } from "./worker/app";
import type { Env } from "./worker/env";
import { runHealthChecks } from "./worker/health-checks";
import { Isolate } from "./worker/isolate";

export { SessionStore } from "./session/session-store";
export { HealthStore } from "./worker/health-store";
export { TrafficStore } from "./worker/traffic-store";

const isolate = new Isolate();
const app = createApp({ isolate });

export default {
  fetch: app.fetch,
  /** Cron Trigger: active health checks of the served table's endpoints. */
  async scheduled(controller: ScheduledController, env: Env, ctx: ExecutionContext): Promise<void> {
    const loading = isolate.tables.load(env, (promise) => ctx.waitUntil(promise));
    const served = loading instanceof Promise ? await loading : loading;
    if (served) ctx.waitUntil(runHealthChecks(env, served, controller.scheduledTime, isolate.health));
  },
} satisfies ExportedHandler<Env>;
