/**
 * @module The Hono app: one handler takes every request (request-handler.ts names its steps), and one
 * error handler answers every failure with `{ error, message, requestId }`: a stable code and a fixed
 * sentence on the wire, the detail in the log line with the same request id.
 */
import { Hono } from "hono";
import type { AppEnv, Env } from "./env";
import { errorResponse, GatewayError } from "./errors";
import { Isolate } from "./isolate";
import { discardRequestBody } from "./request-body";
import { handleRequest } from "./request-handler";
import { newRecord, type RequestRecord, reportRequest } from "./request-record";
import { tableName } from "./table-loader";

export interface AppOptions {
  /** The clock sessions expire by; tests pass one they can move. */
  now?: () => number;
  /** What the isolate keeps between requests (src/index.ts makes the one an isolate has); a fresh one by default. */
  isolate?: Isolate;
}

/** A finished request: its log line and data point, and its count for the status page. */
function settle(isolate: Isolate, record: RequestRecord, env: Env, waitUntil: (p: Promise<unknown>) => void): void {
  reportRequest(record, env);
  const now = Date.now();
  isolate.traffic.count(record, now);
  isolate.traffic.flush(env, tableName(env), now, waitUntil, (id, end) => isolate.tables.learn(env, id, end));
}

export function createApp(options: AppOptions = {}): Hono<AppEnv> {
  const now = options.now ?? Date.now;
  const isolate = options.isolate ?? new Isolate();
  // Routing is the gateway's own: one handler takes every request, so Hono's router is not given the path.
  const app = new Hono<AppEnv>({ getPath: () => "/" });

  // One handler, no middleware: Hono then calls it directly instead of composing a chain.
  app.all("*", async (c) => {
    const request = c.req.raw;
    const requestId = request.headers.get("cf-ray") ?? crypto.randomUUID();
    c.set("requestId", requestId);
    const waitUntil = (promise: Promise<unknown>) => c.executionCtx.waitUntil(promise);
    const record = newRecord(requestId, request);
    c.set("record", record);
    const response = await handleRequest(request, requestId, { env: c.env, waitUntil, isolate, now, record });
    record.status = response.status;
    settle(isolate, record, c.env, waitUntil);
    return response;
  });

  app.onError(async (error, c) => {
    const requestId = c.get("requestId") ?? crypto.randomUUID();
    await discardRequestBody(c.req.raw);
    const record = c.get("record");
    const answer = (code: Parameters<typeof errorResponse>[0]) => {
      const response = errorResponse(code, requestId);
      if (record) settle(isolate, { ...record, status: response.status, error: code }, c.env, (p) => c.executionCtx.waitUntil(p));
      return response;
    };
    if (error instanceof GatewayError) {
      // An expected failure (an upstream that refused, timed out): one line with its cause, no stack trace.
      const cause =
        error.cause instanceof Error ? ` (${error.cause.message})` : error.cause !== undefined ? ` (${String(error.cause)})` : "";
      if (error.status >= 500) console.warn(`kedge ${requestId}: ${error.code}: ${error.detail}${cause}`);
      return answer(error.code);
    }
    console.error(`kedge ${requestId}: unexpected error`, error);
    return answer("INTERNAL_ERROR");
  });

  return app;
}
