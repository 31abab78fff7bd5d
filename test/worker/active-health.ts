/** Driving the active health checks from a test: an origin's health answer, and one Cron run of the real Worker. */
import { createExecutionContext, createScheduledController, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import worker from "../../src/index";
import type { Env } from "../../src/worker/env";

/**
 * A health switch of the loopback origins that is one test file's own (files run side by side against the same
 * origins): the path its config's health checks probe, and how to make the origin on `port` answer it with `status`.
 */
export function healthSwitch(name: string): { path: string; set: (port: number, status: number) => Promise<ArrayBuffer> } {
  const path = `/__origin/health/${name}`;
  return { path, set: (port, status) => fetch(`http://127.0.0.1:${port}${path}?set=${status}`).then((r) => r.arrayBuffer()) };
}

/** One Cron Trigger run (the active checks), waited for to the end. */
export async function cronRun(bindings: Env = env): Promise<void> {
  const ctx = createExecutionContext();
  await worker.scheduled(createScheduledController(), bindings, ctx);
  await waitOnExecutionContext(ctx);
}
