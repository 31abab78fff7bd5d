/**
 * @module The Cron Trigger's run (`scheduled`): the active health checks of the served table (and of a canary's),
 * and the canary's analysis, which promotes or reverts it by itself. Locally `npm start` and `kedge dev` fire it
 * on the wrangler config's schedule as a deployment does (scripts/dev/local-cron.ts).
 */
import { runCanaryAnalysis } from "./canary-tick";
import type { Env } from "./env";
import { runHealthChecks } from "./health-checks";
import type { Isolate } from "./isolate";

export async function runScheduled(controller: ScheduledController, env: Env, ctx: ExecutionContext, isolate: Isolate): Promise<void> {
  const loading = isolate.tables.load(env, (promise) => ctx.waitUntil(promise));
  const serving = loading instanceof Promise ? await loading : loading;
  if (!serving) return;
  ctx.waitUntil(runHealthChecks(env, serving.current, controller.scheduledTime, isolate.health, serving.canary?.served));
  ctx.waitUntil(
    runCanaryAnalysis(env, serving, isolate, Date.now()).catch((error: unknown) => console.error("kedge: canary analysis failed", error)),
  );
}
