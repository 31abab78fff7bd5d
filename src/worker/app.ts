/**
 * @module The Hono app: load table ▸ match ▸ redirect? ▸ session? ▸ pick backend ▸ pick endpoint ▸ proxy.
 * Every failure answers `{ error, message, requestId }` with a stable code.
 */
import { Hono } from "hono";
import type { RequestLocation } from "../routing/locality";
import type { CompiledFilter } from "../table/route-table";
import { actualResponseHeaders, type CorsFilter, preflightHeaders } from "../routing/cors";
import { matchRequest } from "../routing/match-request";
import { redirectLocation } from "../routing/redirect";
import { pickBackend } from "../routing/select-backend";
import type { AppEnv } from "./env";
import { errorResponse, GatewayError } from "./errors";
import { proxyToEndpoint } from "./proxy";
import { discardRequestBody } from "./request-body";
import { resumeSession, type SessionDeps, startSession } from "./sticky-session";
import { attachToken } from "../session/session-cookie";
import { chooseEndpoint } from "./endpoint-choice";
import { OutlierDetector } from "./outlier-detector";
import { checkRequestLimits } from "./request-limits";
import { scanClientHeaders } from "./client-headers";
import { STATUS_PATH, statusBody, tokensEqual } from "./status-endpoint";
import { loadRouteTable, tableName } from "./table-loader";
import { lazyQuery, readRequestLine } from "./request-line";

/** Where Cloudflare says the request comes from; empty when run without `cf` (local tests). */
function requestLocation(request: Request): RequestLocation {
  const cf = request.cf;
  const text = (v: unknown) => (typeof v === "string" && v !== "" ? v : undefined);
  return { continent: text(cf?.continent), country: text(cf?.country), colo: text(cf?.colo) };
}

const NO_LOCATION: RequestLocation = {};

/** A response the gateway gives without forwarding the request: its body is read first (see discardRequestBody). */
async function answerItself(request: Request, response: Response): Promise<Response> {
  await discardRequestBody(request);
  return response;
}

export interface AppOptions {
  /** The clock sessions expire by; tests pass one they can move. */
  now?: () => number;
}

export function createApp(options: AppOptions = {}): Hono<AppEnv> {
  const now = options.now ?? Date.now;
  // Routing is the gateway's own: one handler takes every request, so Hono's router is not given the path.
  const app = new Hono<AppEnv>({ getPath: () => "/" });
  // Passive health is per isolate: what this isolate saw of each endpoint.
  const outliers = new OutlierDetector();

  // One handler, no middleware: Hono then calls it directly instead of composing a chain.
  app.all("*", async (c) => {
    const receivedAt = Date.now();
    const request = c.req.raw;
    const clientHeaders = scanClientHeaders(request.headers);
    const requestId = clientHeaders.ray ?? crypto.randomUUID();
    c.set("requestId", requestId);
    const href = request.url;
    checkRequestLimits(href, clientHeaders);
    // Awaited only when it is a promise: a fresh table (or loaded shard) comes back as is, saving a
    // microtask turn on every request.
    const loading = loadRouteTable(c.env);
    const served = loading instanceof Promise ? await loading : loading;
    if (!served)
      throw new GatewayError(
        "ROUTE_TABLE_UNAVAILABLE",
        `no route table "${tableName(c.env)}" has been pushed to this edge yet; run \`npm run sync\``,
      );
    const line = readRequestLine(request, new URL(href));
    const { method, scheme, host, path } = line;
    if (path === STATUS_PATH && c.env.KEDGE_STATUS_TOKEN) {
      const given = request.headers.get("authorization")?.replace(/^Bearer\s+/i, "") ?? "";
      if (!(await tokensEqual(given, c.env.KEDGE_STATUS_TOKEN))) throw new GatewayError("UNAUTHORIZED", "a valid status token is required");
      return answerItself(
        request,
        c.json(statusBody(served, outliers, Date.now()), 200, { "cache-control": "no-store", "x-request-id": requestId }),
      );
    }
    const protocol = scheme === "https" ? "HTTPS" : "HTTP";
    const finding = served.forHost(protocol, host);
    const prepared = finding instanceof Promise ? await finding : finding;
    const match =
      prepared &&
      matchRequest(prepared, { protocol, host, path, method, headers: request.headers, query: lazyQuery(line.search), port: line.port });
    if (!prepared || !match) throw new GatewayError("ROUTE_NOT_FOUND", `no route matches ${method} ${host}${path}`);
    if (match.rule.invalid) throw new GatewayError("INVALID_RULE", `rule ${match.rule.id} was rejected at sync (${match.rule.invalid})`);
    const redirectTo = (filter: CompiledFilter | undefined): Response | null => {
      if (filter?.type !== "RequestRedirect") return null;
      const facts = { scheme, host, path, search: line.search, listenerPort: match.rule.listenerPort } as const;
      return new Response(null, {
        status: filter.statusCode,
        headers: { location: redirectLocation(filter, facts), "x-request-id": requestId },
      });
    };
    const ruleRedirect = redirectTo(match.rule.filters.find((f) => f.type === "RequestRedirect"));
    if (ruleRedirect) return answerItself(request, ruleRedirect);
    const cors = match.rule.filters.find((f): f is CorsFilter => f.type === "CORS");
    const origin = cors ? request.headers.get("origin") : null;
    if (cors && method === "OPTIONS" && origin && request.headers.get("access-control-request-method")) {
      const preflight = new Response(null, {
        status: 204,
        headers: { ...preflightHeaders(cors, origin, request.headers), "x-request-id": requestId },
      });
      return answerItself(request, preflight);
    }
    const withCors = (response: Response): Response => {
      if (cors && response.status !== 101) {
        for (const [name, value] of Object.entries(actualResponseHeaders(cors, origin))) response.headers.set(name, value);
        response.headers.append("vary", "Origin");
      }
      return response;
    };

    const forward = { request, line, requestId, clientHeaders, receivedAt, rule: match.rule };
    const mirror = { prepared, bindings: c.env, waitUntil: (p: Promise<unknown>) => c.executionCtx.waitUntil(p) };
    const session = match.rule.session;
    const deps: SessionDeps = { env: c.env, now: now(), waitUntil: mirror.waitUntil };
    const pinned = session ? await resumeSession(deps, prepared, match.rule, session, request.headers) : null;
    if (pinned) {
      const { response } = await proxyToEndpoint({ ...forward, mirror, backendFilters: pinned.ref.filters, endpoint: pinned.endpoint });
      return withCors(response);
    }

    const choice = pickBackend(prepared, match.ruleIndex, Math.random());
    if (choice.kind === "none") throw new GatewayError("NO_BACKEND", `route ${match.rule.id} has no backend with weight above 0`);
    if (choice.kind === "invalid")
      throw new GatewayError("BACKEND_NOT_RESOLVED", `a backend of route ${match.rule.id} could not be resolved (${choice.reason})`);
    const backendRedirect = redirectTo(choice.ref.filters.find((f) => f.type === "RequestRedirect"));
    if (backendRedirect) return answerItself(request, backendRedirect);
    // Reading request.cf is costly in workerd; only a table with a locality policy needs it.
    const location = prepared.table.locality ? requestLocation(request) : NO_LOCATION;
    const { endpoint, next: nextEndpoint, onOutcome } = chooseEndpoint(prepared, choice.backend, location, outliers);
    if (!endpoint) throw new GatewayError("NO_HEALTHY_ENDPOINT", `backend ${choice.backend.backend.id} has no ready endpoint`);
    // A new session is stored while the upstream works; its token joins the response.
    const backendId = choice.backend.backend.id;
    let token = session ? startSession(deps, session, backendId, endpoint.id) : null;
    const sent = await proxyToEndpoint({ ...forward, mirror, backendFilters: choice.ref.filters, endpoint, nextEndpoint, onOutcome });
    // A retry answered from another endpoint: pin that one instead.
    if (session && sent.endpoint.id !== endpoint.id) token = startSession(deps, session, backendId, sent.endpoint.id);
    const issued = token && (await token);
    if (session && issued && sent.response.status !== 101) attachToken(sent.response.headers, session, issued, scheme === "https");
    return withCors(sent.response);
  });

  app.onError(async (error, c) => {
    const requestId = c.get("requestId") ?? crypto.randomUUID();
    await discardRequestBody(c.req.raw);
    if (error instanceof GatewayError) {
      if (error.status >= 500) console.warn(`kedge ${requestId}: ${error.code}: ${error.message}`, error.cause ?? "");
      return errorResponse(error.code, error.message, requestId);
    }
    console.error(`kedge ${requestId}: unexpected error`, error);
    return errorResponse("INTERNAL_ERROR", "the gateway failed to handle this request", requestId);
  });

  return app;
}
