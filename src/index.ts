/** @module Worker entry: wiring only. One isolate object holds what requests and Cron runs share. */
import { createApp } from "./worker/app";
import type { Env } from "./worker/env";
import { Isolate } from "./worker/isolate";
import { runScheduled } from "./worker/scheduled";

export { SessionStore } from "./session/session-store";
export { HealthStore } from "./worker/health-store";
export { TrafficStore } from "./worker/traffic-store";

const isolate = new Isolate();
const app = createApp({ isolate });

export default {
  fetch: app.fetch,
  /** Cron Trigger: active health checks, and the canary's analysis. */
  scheduled: (controller: ScheduledController, env: Env, ctx: ExecutionContext): Promise<void> =>
    runScheduled(controller, env, ctx, isolate),
} satisfies ExportedHandler<Env>;
