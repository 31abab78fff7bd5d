/** Driving the active health checks from a test: an origin's health answer, and one Cron run of the real Worker. */
import { createExecutionContext, createScheduledController, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import worker from "../../src/index";
import type { Env } from "../../src/worker/env";

/** Makes the loopback origin on `port` answer its health path with `status`. */
export const setOriginHealth = (port: number, status: number): Promise<ArrayBuffer> =>
  fetch(`http://127.0.0.1:${port}/__origin/health?set=${status}`).then((r) => r.arrayBuffer());

/** One Cron Trigger run (the active checks), waited for to the end. */
export async function cronRun(bindings: Env = env): Promise<void> {
  const ctx = createExecutionContext();
  await worker.scheduled(createScheduledController(), bindings, ctx);
  await waitOnExecutionContext(ctx);
}
