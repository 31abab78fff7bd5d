/**
 * @module The one way out. Every request the Worker sends upstream (forwarded, retried, mirrored, probed)
 * goes through `sendOnce`: the egress check, the mTLS certificate binding, a timeout that starts when the
 * try is sent, and the health feed. `forward` adds retries and failover as Gateway API (GEP-1731) and
 * Envoy define them: connection errors and backendRequest timeouts are retried, a `retry` policy's codes
 * too, with exponential backoff and jitter, each retry to another endpoint (another cluster first), all
 * under the backend's retry budget and the rule's request timeout; a policy with `attempts: 0` sends once.
 */
import { hostnameMatches } from "../routing/hostname-match";
import { isInternalAddress } from "../routing/address-scope";
import type { CompiledEndpoint, CompiledRetry, EgressPolicy } from "../table/route-table";
import { GatewayError } from "./errors";
import type { HealthView } from "./health-view";
import { bodyForSend, isReplayable, type RequestBody } from "./request-body";
import type { RetryBudget } from "./retry-budget";

/** What is sent: the request after the rule's filters. */
export interface Outbound {
  method: string;
  /** Path and query, e.g. `/a/b?x=1`. */
  pathAndQuery: string;
  headers: Headers;
  body: RequestBody;
  /** The host the origin is to see, for an endpoint that keeps the client's Host (absent for probes). */
  originHost?: string;
}

/** What every send needs besides the request: the Worker's bindings, the egress rules, the health feed. */
export interface Link {
  bindings: object;
  /** The table's egress rules: an external endpoint they do not allow is never contacted. */
  egress?: EgressPolicy;
  /** Fed with every try's outcome; absent for active probes, which keep their own counts. */
  health?: HealthView;
}

/** A try that got no answer. */
export interface Failure {
  failed: "timeout" | "unreachable";
  cause: unknown;
}

/**
 * Where a try goes: its URL and the `cf` options that make Cloudflare connect to the endpoint when the URL
 * names another host. Under a BackendTLSPolicy the URL names the policy's hostname (a Worker's fetch takes
 * SNI and the certificate's expected name from the URL); for an endpoint that keeps the client's Host, the
 * host the origin is to see. `cf.resolveOverride` then names the endpoint: Cloudflare honours it when both
 * names are in the Worker's zone, and workerd outside Cloudflare ignores it (it resolves the URL's host).
 */
export function upstreamTarget(
  e: CompiledEndpoint,
  pathAndQuery: string,
  originHost?: string,
): { url: string; cf?: RequestInitCfProperties } {
  const named = e.serverName ?? (e.keepClientHost ? originHost : undefined);
  const host = named ?? (e.host.includes(":") ? `[${e.host}]` : e.host);
  const url = `${e.scheme}://${host}:${e.port}${pathAndQuery}`;
  return named !== undefined && named !== e.host ? { url, cf: { resolveOverride: e.host } } : { url };
}

/**
 * Whether the Worker may contact this endpoint: a cluster's endpoints always (the sync checks them: `--remote`
 * refuses private ones no network binding reaches); an external (XBackend) one only when it is not the
 * machine itself or a private or link-local address (unless the table allows localhost, for local
 * development), and inside the table's egress allow-list when it has one. The sync refuses such XBackends
 * already; this is the Worker's second check, made for every send, against a table altered after the sync.
 */
export function egressAllowed(endpoint: CompiledEndpoint, egress: EgressPolicy | undefined): boolean {
  if (!endpoint.external) return true;
  if (!egress?.allowLocalhost && isInternalAddress(endpoint.host)) return false;
  const allowed = egress?.allowedHostnames;
  return !allowed || allowed.some((pattern) => hostnameMatches(pattern, endpoint.host));
}

/**
 * The fetch() a try goes through. Workers present a client certificate only through an mTLS certificate
 * binding's own fetch(), so an endpoint that needs one goes through the binding its XBackend's
 * clientCertificateRef maps to; an endpoint behind a cluster's private network goes through that
 * network's VPC binding, whose fetch() connects to the address the URL names. Both are Fetchers: a
 * connection that fails rejects, as the global fetch() does.
 */
function fetcherFor(endpoint: CompiledEndpoint, bindings: object): typeof fetch {
  const name = endpoint.mtlsBinding ?? endpoint.network;
  if (name === undefined) return fetch;
  const binding = (bindings as Record<string, unknown>)[name] as Fetcher | undefined;
  if (typeof binding?.fetch !== "function") {
    throw endpoint.mtlsBinding
      ? new GatewayError(
          "MTLS_BINDING_MISSING",
          `upstream ${endpoint.id} needs the mTLS certificate binding ${name}, which this Worker does not have`,
        )
      : new GatewayError(
          "NETWORK_BINDING_MISSING",
          `upstream ${endpoint.id} is reached through the VPC network binding ${name}, which this Worker does not have (add its [[vpc_networks]] block to the wrangler config of this environment)`,
        );
  }
  return (input, init) => binding.fetch(input as RequestInfo, init);
}

const feed = (link: Link, endpoint: CompiledEndpoint, outcome: Response | Failure, peers: CompiledEndpoint[]) => {
  if (!link.health) return;
  const kind =
    outcome instanceof Response ? (outcome.status < 500 ? "ok" : "failed") : outcome.failed === "timeout" ? "failed" : "unreachable";
  link.health.report(endpoint, kind, peers, Date.now());
};

/**
 * One try. Throws a GatewayError when the endpoint may not be contacted (egress, a missing mTLS binding);
 * a failure to connect or a timeout resolves to a Failure. `peers` are the endpoint's backend's endpoints,
 * for the health feed.
 */
export function sendOnce(
  link: Link,
  endpoint: CompiledEndpoint,
  outbound: Outbound,
  limitMs: number,
  peers: CompiledEndpoint[],
): Promise<Response | Failure> {
  if (!egressAllowed(endpoint, link.egress)) {
    throw new GatewayError("EGRESS_NOT_ALLOWED", `upstream ${endpoint.id} is not allowed by the table's egress rules`);
  }
  const send = fetcherFor(endpoint, link.bindings);
  const body = bodyForSend(outbound.body);
  let sending: Promise<Response>;
  try {
    const target = upstreamTarget(endpoint, outbound.pathAndQuery, outbound.originHost);
    sending = send(target.url, {
      method: outbound.method,
      headers: outbound.headers,
      // A buffered body is copied per try: a sent body may not be readable again.
      body: body instanceof ArrayBuffer ? body.slice(0) : body,
      redirect: "manual",
      cf: target.cf,
      // Started now, when this try is sent: a try never inherits time another one spent.
      signal: Number.isFinite(limitMs) ? AbortSignal.timeout(limitMs) : undefined,
    });
  } catch (cause) {
    // A fetcher that throws at once has failed like one that rejects.
    sending = Promise.reject(cause);
  }
  return sending.then(
    (response) => {
      feed(link, endpoint, response, peers);
      return response;
    },
    (cause: unknown) => {
      const timedOut = cause instanceof Error && (cause.name === "TimeoutError" || cause.name === "AbortError");
      const failure: Failure = { failed: timedOut ? "timeout" : "unreachable", cause };
      feed(link, endpoint, failure, peers);
      return failure;
    },
  );
}

/** Why a try is retried; a pinned session retries an answer on its own endpoint, anything else elsewhere. */
export type RetryReason = "unreachable" | "timeout" | "status";

export interface ForwardPlan {
  outbound: Outbound;
  endpoint: CompiledEndpoint;
  /** The endpoint's backend's endpoints (health feed). */
  peers: CompiledEndpoint[];
  /** When the request arrived: `timeouts.request` covers the whole transaction, a buffered body's read included. */
  receivedAt: number;
  timeouts?: { requestMs?: number; backendRequestMs?: number };
  retry?: CompiledRetry;
  /** The endpoint for the next try after `tried`, or null when none is left. */
  next: (tried: CompiledEndpoint[], why: RetryReason) => CompiledEndpoint | null;
  budget: RetryBudget;
}

export interface ForwardResult {
  response: Response;
  /** The endpoint that answered. */
  endpoint: CompiledEndpoint;
  tries: number;
}

/** Methods that may be sent twice without changing their effect (RFC 9110 §9.2.2). */
const IDEMPOTENT = new Set(["GET", "HEAD", "OPTIONS", "PUT", "DELETE", "TRACE"]);
/** Backoff grows to at most this many times the policy's `backoff` (as Envoy's does). */
const MAX_BACKOFF_FACTOR = 10;

const enabled = (ms: number | undefined): number => (ms !== undefined && ms > 0 ? ms : Number.POSITIVE_INFINITY);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The wait before retry `n` (0-based): `backoff`·2ⁿ, capped, plus up to as much again at random; never below `backoff`. */
export function backoffDelay(baseMs: number, n: number, random: number): number {
  const step = Math.min(baseMs * 2 ** n, baseMs * MAX_BACKOFF_FACTOR);
  return step + random * step;
}

/**
 * How many retries a request may have: a `retry` policy's attempts (any method: the route asked for it;
 * `attempts: 0` none at all, not even a failover); without one, a single failover of an idempotent request
 * that could not connect. Never with a body that was streamed (it cannot be sent twice).
 */
function retryAllowance(plan: ForwardPlan): { attempts: number; codes: readonly number[]; timeouts: boolean } {
  if (!isReplayable(plan.outbound.body)) return { attempts: 0, codes: [], timeouts: false };
  if (plan.retry) return { attempts: plan.retry.attempts, codes: plan.retry.codes, timeouts: true };
  return { attempts: IDEMPOTENT.has(plan.outbound.method) ? 1 : 0, codes: [], timeouts: false };
}

/** Sends a forwarded request, with retries and failover; answers what the last try got, or a GatewayError. */
export async function forward(link: Link, plan: ForwardPlan): Promise<ForwardResult> {
  const requestMs = enabled(plan.timeouts?.requestMs);
  const backendMs = enabled(plan.timeouts?.backendRequestMs);
  const deadline = Number.isFinite(requestMs) ? plan.receivedAt + requestMs : Number.POSITIVE_INFINITY;
  const allowance = retryAllowance(plan);
  const tried: CompiledEndpoint[] = [];
  let endpoint = plan.endpoint;
  plan.budget.request(Date.now());
  for (let attempt = 0; ; attempt++) {
    const remaining = deadline - Date.now();
    if (remaining <= 0) throw new GatewayError("UPSTREAM_TIMEOUT", `no answer within the request timeout of ${requestMs} ms`);
    const limit = Math.min(backendMs, remaining);
    tried.push(endpoint);
    const outcome = await sendOnce(link, endpoint, plan.outbound, limit, plan.peers);
    let why: RetryReason;
    if (outcome instanceof Response) {
      if (!allowance.codes.includes(outcome.status)) return { response: outcome, endpoint, tries: attempt + 1 };
      why = "status";
    } else if (outcome.failed === "timeout") {
      // The request's own deadline ends everything; a try's backendRequest limit is retryable.
      if (limit === remaining) {
        throw new GatewayError("UPSTREAM_TIMEOUT", `no answer within the request timeout of ${requestMs} ms`, { cause: outcome.cause });
      }
      why = "timeout";
    } else why = "unreachable";
    const retryable = attempt < allowance.attempts && (why !== "timeout" || allowance.timeouts);
    const nextEndpoint = retryable ? plan.next(tried, why) : null;
    if (nextEndpoint && !plan.budget.tryRetry(Date.now())) {
      // GEP-3388: a retry the budget refuses is answered 503, whatever the try got.
      if (outcome instanceof Response) await outcome.body?.cancel();
      throw new GatewayError(
        "RETRY_BUDGET_EXCEEDED",
        `retry ${attempt + 1} to ${endpoint.id}'s backend refused by its retry budget (${why})`,
        {
          cause: outcome instanceof Response ? undefined : outcome.cause,
        },
      );
    }
    if (!nextEndpoint) {
      if (outcome instanceof Response) return { response: outcome, endpoint, tries: attempt + 1 };
      if (why === "timeout")
        throw new GatewayError("UPSTREAM_TIMEOUT", `upstream ${endpoint.id} did not answer within ${limit} ms`, { cause: outcome.cause });
      throw new GatewayError("UPSTREAM_UNREACHABLE", `upstream ${tried.map((t) => t.id).join(", ")} could not be reached`, {
        cause: outcome.cause,
      });
    }
    if (outcome instanceof Response) await outcome.body?.cancel();
    // Without a policy a failover goes at once; a policy's retries back off.
    const wait = plan.retry ? Math.min(backoffDelay(plan.retry.backoffMs, attempt, Math.random()), deadline - Date.now()) : 0;
    if (wait > 0) await sleep(wait);
    endpoint = nextEndpoint;
  }
}

/** A mirror copy's longest wait for an answer (which is discarded). */
const MIRROR_TIMEOUT_MS = 10_000;

/** Sends a copy and discards the answer; never throws (a mirror never fails the request). */
export async function mirror(link: Link, endpoint: CompiledEndpoint, outbound: Outbound, peers: CompiledEndpoint[]): Promise<void> {
  try {
    const outcome = await sendOnce(link, endpoint, outbound, MIRROR_TIMEOUT_MS, peers);
    if (outcome instanceof Response) await outcome.body?.cancel();
    else console.warn(`kedge: mirror to ${endpoint.id}: ${outcome.failed}`, outcome.cause);
  } catch (error) {
    console.warn(`kedge: mirror to ${endpoint.id} not sent`, error);
  }
}

const PROBE_HEADERS = { "user-agent": "kedge-health-check" };

/** An active health probe: the status the endpoint answered `path` with, or null when it did not answer. */
export async function probe(link: Link, endpoint: CompiledEndpoint, path: string, timeoutMs: number): Promise<number | null> {
  try {
    const outbound: Outbound = { method: "GET", pathAndQuery: path, headers: new Headers(PROBE_HEADERS), body: { kind: "none" } };
    const outcome = await sendOnce(link, endpoint, outbound, timeoutMs, []);
    if (!(outcome instanceof Response)) return null;
    await outcome.body?.cancel();
    return outcome.status;
  } catch {
    return null;
  }
}
