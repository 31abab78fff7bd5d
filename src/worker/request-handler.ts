/**
 * @module One request, as named steps: resolve (table, request line, the version, the matching rule) ▸ answer locally
 * (status endpoint, invalid rule, redirect, CORS preflight) ▸ pin or choose (a live session's endpoint,
 * or a backendRef by weight and an endpoint by the health view) ▸ forward (request edits, mirrors, the
 * send with retries and failover) ▸ decorate (response edits, session token, CORS).
 */
import { actualResponseHeaders, preflightHeaders } from "../routing/cors";
import { failoverEndpoint, pickEndpoint } from "../routing/endpoint-pool";
import type { FilterSlots, RedirectFilter, RuleSlots } from "../routing/filter-slots";
import { applyHeaderModifier } from "../routing/header-modifier";
import { localityTier, type RequestLocation } from "../routing/locality";
import { matchRequest, type RouteMatch } from "../routing/match-request";
import { type PreparedBackend, type PreparedTable, slotsOf } from "../routing/prepared-table";
import { redirectLocation } from "../routing/redirect";
import { pickBackend } from "../routing/select-backend";
import { attachToken } from "../session/session-cookie";
import type { CompiledBackendRef, CompiledEndpoint } from "../table/route-table";
import { scanClientHeaders } from "./client-headers";
import type { Env } from "./env";
import { GatewayError } from "./errors";
import { stripHopByHop } from "./forwarding-headers";
import type { Isolate } from "./isolate";
import { discardRequestBody, readRequestBody } from "./request-body";
import { checkRequestLimits } from "./request-limits";
import { lazyQuery, readRequestLine } from "./request-line";
import type { ServedTable } from "./served-table";
import { pageBackends, servedClusters, sharedStatus, STATUS_PATH, statusBody, tokensEqual } from "./status-endpoint";
import { statusPage } from "./status-page";
import { keepSession, type Pinned, pinKey, resumeSession, type SessionDeps, sessionVersion, startSession } from "./sticky-session";
import { type Serving, tableName } from "./table-loader";
import { type ForwardResult, forward, type Link, mirror, type Outbound, type RetryReason } from "./upstream";
import { buildUpstreamRequest, type RequestFacts } from "./upstream-request";
import type { RequestRecord } from "./request-record";

/** What a request is handled with: the Worker's bindings and the isolate's shared state. */
export interface HandlerContext {
  env: Env;
  waitUntil(promise: Promise<unknown>): void;
  /** What the isolate keeps between requests: tables, health view, retry budgets, sessions, counts. */
  isolate: Isolate;
  /** The clock sessions expire by (tests move it). */
  now: () => number;
  /** What this request did, filled step by step (logs and metrics). */
  record: RequestRecord;
}

/** A request resolved to the rule that handles it. */
interface Resolved extends RequestFacts {
  served: ServedTable;
  prepared: PreparedTable;
  match: RouteMatch;
  slots: RuleSlots;
  location: RequestLocation;
}

/** Where the request goes: a backendRef, its backend and an endpoint, and how a retry finds another. */
interface Target {
  ref: CompiledBackendRef;
  /** The rule's filters joined with the backendRef's. */
  slots: FilterSlots;
  backend: PreparedBackend;
  endpoint: CompiledEndpoint;
  /** The live session that pinned the endpoint, if any. */
  pinned: Pinned | null;
  /** A new session's token, being stored while the upstream works (absent: none to start). */
  newSession?: Promise<string | null>;
}

const NO_LOCATION: RequestLocation = {};

/** Where Cloudflare says the request comes from; empty when run without `cf` (local tests). */
function requestLocation(request: Request): RequestLocation {
  const cf = request.cf;
  const text = (v: unknown) => (typeof v === "string" && v !== "" ? v : undefined);
  return { continent: text(cf?.continent), country: text(cf?.country), colo: text(cf?.colo) };
}

/** Whether Cloudflare's mTLS check saw a client certificate and verified it against the hostname's CA. */
function clientCertificateVerified(request: Request): boolean {
  const auth = request.cf?.tlsClientAuth as { certPresented?: string; certVerified?: string } | undefined;
  return auth?.certPresented === "1" && auth.certVerified === "SUCCESS";
}

/** A response the gateway gives without forwarding the request: its body is read first (see discardRequestBody). */
async function answerItself(request: Request, response: Response): Promise<Response> {
  await discardRequestBody(request);
  return response;
}

function redirectResponse(ctx: Resolved, filter: RedirectFilter): Response {
  const { scheme, host, path, search } = ctx.line;
  const location = redirectLocation(filter, { scheme, host, path, search, listenerPort: ctx.match.rule.listenerPort });
  return new Response(null, { status: filter.statusCode, headers: { location, "x-request-id": ctx.requestId } });
}

/** The status endpoint, when asked for and enabled; null otherwise. */
async function statusAnswer(request: Request, line: RequestFacts["line"], serving: Serving, h: HandlerContext, requestId: string) {
  if (line.path !== STATUS_PATH || !h.env.KEDGE_STATUS_TOKEN) return null;
  // RFC 6750: the token as a Bearer credential, nothing else (not bare, not in the URL).
  const given = /^Bearer +(\S+)$/i.exec(request.headers.get("authorization") ?? "")?.[1] ?? "";
  if (!given || !(await tokensEqual(given, h.env.KEDGE_STATUS_TOKEN)))
    throw new GatewayError("UNAUTHORIZED", "status endpoint called without its token");
  const served = serving.current;
  const shared = await sharedStatus(h.env, served.name, serving.canary?.spec ?? null);
  if (request.headers.get("accept")?.includes("text/html")) {
    const page = statusPage({
      table: { name: served.name, version: served.version },
      ...shared,
      backends: pageBackends(served, h.isolate.health),
      clusters: servedClusters(served),
      now: Date.now(),
    });
    const headers = { "content-type": "text/html; charset=utf-8", "cache-control": "no-store", "x-request-id": requestId };
    return answerItself(request, new Response(page, { headers }));
  }
  const body = JSON.stringify({ ...(statusBody(served, h.isolate.health) as object), shared });
  const headers = { "content-type": "application/json", "cache-control": "no-store", "x-request-id": requestId };
  return answerItself(request, new Response(body, { headers }));
}

/** The rule a request matches in one version's table (404 when that version routes it nowhere). */
async function routeOn(served: ServedTable, line: RequestFacts["line"], request: Request, h: HandlerContext) {
  const { method, scheme, host, path } = line;
  const protocol = scheme === "https" ? "HTTPS" : "HTTP";
  // Named first: a version whose shard cannot be read (503) is counted against that version.
  h.record.table = `${served.name}@${served.version}`;
  const finding = served.forHost(protocol, host);
  const prepared = finding instanceof Promise ? await finding : finding;
  const query = lazyQuery(line.search);
  const match = prepared && matchRequest(prepared, { protocol, host, path, method, headers: request.headers, query, port: line.port });
  if (!prepared || !match) throw new GatewayError("ROUTE_NOT_FOUND", `no route matches ${method} ${host}${path}`);
  return { served, prepared, match };
}

/**
 * The version a request gets while a canary runs: a live session stays on the version it started on (the canary's,
 * or else the current one: sessions from before the canary stay where they are); any other request keeps the draw.
 */
async function stickToSessionVersion(
  routed: Awaited<ReturnType<typeof routeOn>>,
  serving: Serving,
  line: RequestFacts["line"],
  request: Request,
  h: HandlerContext,
) {
  const canary = serving.canary;
  const session = routed.match.rule.session;
  if (!canary || !session) return routed;
  const version = await sessionVersion(sessionDeps(h), session, request.headers);
  if (version === null) return routed;
  const sticky = version === canary.spec.version ? canary.served : serving.current;
  return sticky === routed.served ? routed : routeOn(sticky, line, request, h);
}

/** Step 1: the table, the request line, the version (the canary's share), and the rule that matches (or the status endpoint's answer). */
async function resolve(request: Request, requestId: string, h: HandlerContext): Promise<Resolved | Response> {
  const receivedAt = Date.now();
  const clientHeaders = scanClientHeaders(request.headers);
  const href = request.url;
  checkRequestLimits(href, clientHeaders);
  // Awaited only when it is a promise: a served table comes back as is, saving a microtask turn per request.
  const loading = h.isolate.tables.load(h.env, h.waitUntil);
  const serving = loading instanceof Promise ? await loading : loading;
  if (!serving) throw new GatewayError("ROUTE_TABLE_UNAVAILABLE", `no table "${tableName(h.env)}" has been read by this isolate`);
  const line = readRequestLine(request, new URL(href));
  const status = await statusAnswer(request, line, serving, h, requestId);
  if (status) return status;
  h.record.host = line.host;
  // The canary's share of new requests: one draw; a live session then keeps the version it started on.
  const canary = serving.canary;
  if (canary) h.record.canary = canary.spec.id;
  const drawn = canary && Math.random() * 100 < canary.spec.percent ? canary.served : serving.current;
  let routed = await routeOn(drawn, line, request, h);
  if (canary) routed = await stickToSessionVersion(routed, serving, line, request, h);
  const { served, prepared, match } = routed;
  const { source } = match.rule;
  h.record.route = `${source.namespace}/${source.name}`;
  h.record.rule = match.rule.id;
  // Reading request.cf is costly in workerd; only a table with a locality policy needs it.
  const location = prepared.table.locality ? requestLocation(request) : NO_LOCATION;
  return {
    request,
    line,
    requestId,
    clientHeaders,
    receivedAt,
    served,
    prepared,
    match,
    slots: slotsOf(prepared, match.ruleIndex),
    location,
  };
}

/** Step 2: what the gateway answers without an upstream: an invalid rule, a redirect, a CORS preflight. */
function answerLocally(ctx: Resolved): Promise<Response> | null {
  const { rule } = ctx.match;
  if (rule.clientCertificate && !clientCertificateVerified(ctx.request))
    throw new GatewayError("CLIENT_CERTIFICATE_REQUIRED", `rule ${rule.id} needs a client certificate Cloudflare verified`);
  if (rule.invalid) throw new GatewayError("INVALID_RULE", `rule ${rule.id} was rejected at sync (${rule.invalid})`);
  const { redirect, cors } = ctx.slots.rule;
  if (redirect) return answerItself(ctx.request, redirectResponse(ctx, redirect));
  const headers = ctx.request.headers;
  const origin = cors ? headers.get("origin") : null;
  if (cors && origin && ctx.line.method === "OPTIONS" && headers.get("access-control-request-method")) {
    const preflight = new Response(null, {
      status: 204,
      headers: { ...preflightHeaders(cors, origin, headers), "x-request-id": ctx.requestId },
    });
    return answerItself(ctx.request, preflight);
  }
  return null;
}

function sessionDeps(h: HandlerContext): SessionDeps {
  return { env: h.env, sessions: h.isolate.sessions, now: h.now(), waitUntil: h.waitUntil };
}

/**
 * Step 3: the endpoint. A live session's pinned endpoint while the health view calls it usable; otherwise
 * a backendRef by weight and an endpoint of its backend (health, locality), and a new session when the
 * rule has persistence. A backendRef that redirects is answered here.
 */
async function pinOrChoose(ctx: Resolved, h: HandlerContext): Promise<Target | RedirectFilter> {
  const { rule, ruleIndex } = ctx.match;
  h.isolate.health.refresh(Date.now());
  const session = rule.session;
  const deps = session ? sessionDeps(h) : null;
  const pinned = session && deps ? await resumeSession(deps, ctx.prepared, rule, session, ctx.request.headers) : null;
  if (pinned) h.record.session = h.isolate.health.usable(pinned.endpoint) ? "resumed" : "moved";
  if (pinned && h.isolate.health.usable(pinned.endpoint)) {
    const slots = ctx.slots.refs[pinned.refIndex] ?? ctx.slots.rule;
    return { ref: pinned.ref, slots, backend: pinned.backend, endpoint: pinned.endpoint, pinned };
  }
  const choice = pickBackend(ctx.prepared, ruleIndex, Math.random());
  if (choice.kind === "none") throw new GatewayError("NO_BACKEND", `rule ${rule.id} has no backend with weight above 0`);
  if (choice.kind === "invalid")
    throw new GatewayError("BACKEND_NOT_RESOLVED", `a backend of rule ${rule.id} is not resolved (${choice.reason})`);
  const slots = ctx.slots.refs[choice.refIndex] ?? ctx.slots.rule;
  if (slots.redirect) return slots.redirect;
  const endpoint = pickEndpoint(ctx.prepared, choice.backend, Math.random(), ctx.location, h.isolate.health);
  if (!endpoint)
    throw new GatewayError(
      "NO_HEALTHY_ENDPOINT",
      `backend ${choice.backend.backend.id} has no ready endpoint that takes new traffic (a draining cluster's keep only their pinned sessions)`,
    );
  // A new session is stored while the upstream works; its token joins the response.
  const newSession =
    session && deps ? startSession(deps, session, pinKey(choice.backend.backend), endpoint.id, ctx.served.version) : undefined;
  return { ref: choice.ref, slots, backend: choice.backend, endpoint, pinned: null, ...(newSession ? { newSession } : {}) };
}

/** Step 4: the request edits, the mirrors, and the send with retries and failover. */
async function forwardRequest(ctx: Resolved, target: Target, h: HandlerContext): Promise<ForwardResult> {
  const { rule } = ctx.match;
  const upstream = buildUpstreamRequest(ctx, target.slots.request);
  // A body is kept for a second send only when one may come: `attempts: 0` sends once.
  const replayWanted = (rule.retry !== undefined && rule.retry.attempts > 0) || target.slots.mirrors.length > 0;
  const reading = readRequestBody(ctx.request, ctx.line.method, replayWanted);
  const body = reading instanceof Promise ? await reading : reading;
  const outbound: Outbound = { ...upstream, body };
  const link: Link = { bindings: h.env, egress: ctx.prepared.table.egress, health: h.isolate.health };
  sendMirrors(ctx, target.slots, outbound, link, h);
  const { backend, pinned } = target;
  const next = (tried: CompiledEndpoint[], why: RetryReason): CompiledEndpoint | null =>
    // A pinned endpoint that answered is retried itself (it is alive); one that failed gives way.
    pinned && why === "status"
      ? pinned.endpoint
      : (failoverEndpoint(ctx.prepared, backend, ctx.location, h.isolate.health, tried, Math.random()) ?? tried[tried.length - 1]!);
  h.record.backend = backend.backend.id;
  const sent = await forward(link, {
    outbound,
    endpoint: target.endpoint,
    peers: backend.backend.endpoints,
    receivedAt: ctx.receivedAt,
    timeouts: rule.timeouts,
    retry: rule.retry,
    next,
    budget: h.isolate.budgets.of(backend.backend),
  });
  const record = h.record;
  record.endpoint = sent.endpoint.id;
  record.cluster = sent.endpoint.cluster;
  record.tries = sent.tries;
  record.upstreamMs = Date.now() - ctx.receivedAt;
  const locality = ctx.prepared.table.locality;
  if (locality) record.tier = localityTier(locality.clusters[sent.endpoint.cluster], ctx.location);
  const upgraded = sent.response.status === 101 && ctx.clientHeaders.webSocket;
  if (sent.response.status < 200 && !upgraded) {
    // workerd's fetch() ends at an interim response (a 103 Early Hints, say): the final one never arrives.
    await sent.response.body?.cancel().catch(() => undefined);
    throw new GatewayError(
      "UPSTREAM_INTERIM_RESPONSE",
      `upstream ${sent.endpoint.id} answered with the interim status ${sent.response.status}`,
    );
  }
  return sent;
}

/**
 * RequestMirror: a copy to one endpoint of each mirror backend, in the background; never a streamed body.
 * Filters apply in the order written: a mirror listed before some request edits copies the request as
 * it was before them.
 */
function sendMirrors(ctx: Resolved, slots: FilterSlots, outbound: Outbound, link: Link, h: HandlerContext): void {
  if (slots.mirrors.length === 0 || outbound.body.kind === "stream") return;
  for (const { filter: f, editsBefore } of slots.mirrors) {
    if (Math.random() * 100 >= f.percent) continue;
    const backend = ctx.prepared.backends.get(f.backend);
    const endpoint = backend && pickEndpoint(ctx.prepared, backend, Math.random(), ctx.location, h.isolate.health);
    if (!backend || !endpoint) continue;
    const shaped =
      editsBefore === slots.request.length
        ? { ...outbound, headers: new Headers(outbound.headers) }
        : { ...buildUpstreamRequest(ctx, slots.request.slice(0, editsBefore)), body: outbound.body };
    h.waitUntil(mirror(link, endpoint, shaped, backend.backend.endpoints));
  }
}

/** Step 5: the response edits, the session (kept, moved or new) and the CORS headers. */
async function decorate(ctx: Resolved, target: Target, sent: ForwardResult, h: HandlerContext): Promise<Response> {
  const session = ctx.match.rule.session;
  const answer = sent.response;
  // A WebSocket upgrade passes through as it is.
  if (answer.status === 101 && ctx.clientHeaders.webSocket) return answer;
  // Re-wrapping copies status and headers natively; only the edits below run in JS.
  const response = new Response(answer.body, answer);
  stripHopByHop(response.headers);
  for (const modifier of target.slots.response) applyHeaderModifier(response.headers, modifier);
  response.headers.set("x-request-id", ctx.requestId);
  if (session) {
    const deps = sessionDeps(h);
    const answeredByPin = target.pinned && sent.endpoint.id === target.pinned.endpoint.id;
    if (target.pinned && answeredByPin) keepSession(deps, target.pinned);
    else {
      h.record.session = target.pinned || h.record.session === "moved" ? "moved" : "new";
      // No session yet, or its pin failed and another endpoint answered: pin the one that answered.
      const pending = !target.pinned && sent.endpoint.id === target.endpoint.id ? target.newSession : undefined;
      const token = await (pending ?? startSession(deps, session, pinKey(target.backend.backend), sent.endpoint.id, ctx.served.version));
      if (token) attachToken(response.headers, session, token, ctx.line.scheme === "https");
    }
  }
  const cors = ctx.slots.rule.cors;
  if (cors) {
    for (const [name, value] of Object.entries(actualResponseHeaders(cors, ctx.request.headers.get("origin"))))
      response.headers.set(name, value);
    response.headers.append("vary", "Origin");
  }
  return response;
}

/** Handles one request; failures are thrown as GatewayErrors for the app's error handler. */
export async function handleRequest(request: Request, requestId: string, h: HandlerContext): Promise<Response> {
  const ctx = await resolve(request, requestId, h);
  if (ctx instanceof Response) return ctx;
  const local = answerLocally(ctx);
  if (local) return local;
  const target = await pinOrChoose(ctx, h);
  if (!("endpoint" in target)) return answerItself(request, redirectResponse(ctx, target));
  const sent = await forwardRequest(ctx, target, h);
  return decorate(ctx, target, sent, h);
}
