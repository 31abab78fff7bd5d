/**
 * Sends a request to the Worker's default export in this workerd isolate, with its own execution
 * context, and waits for its waitUntil work (mirrors, session writes). Much cheaper per request than
 * `exports.default.fetch`, whose per-call bookkeeping grows over a long loop of requests.
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import worker from "../../src/index";

export async function dispatch(request: Request): Promise<Response> {
  const ctx = createExecutionContext();
  const response = await worker.fetch(request, env, ctx);
  await waitOnExecutionContext(ctx);
  return response;
}
