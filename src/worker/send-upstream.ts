/**
 * @module Sends one request upstream with the rule's timeouts and retry policy. `timeouts.request` caps
 * everything (504 the moment it passes); `timeouts.backendRequest` caps each try. A retry goes to another
 * endpoint when the caller offers one, after `backoff`, and only with a body that can be sent again.
 */
import type { CompiledEndpoint, CompiledRetry } from "../table/route-table";
import { GatewayError } from "./errors";
import { bodyForSend, isReplayable, type RequestBody } from "./request-body";
import { egressAllowed, endpointUrl, fetcherFor, type UpstreamRequest } from "./upstream-request";

export interface SendPlan {
  upstream: UpstreamRequest;
  body: RequestBody;
  endpoint: CompiledEndpoint;
  bindings: object;
  timeouts?: { requestMs?: number; backendRequestMs?: number };
  /** When the request arrived: `timeouts.request` covers the whole transaction, a buffered body's read included. */
  receivedAt: number;
  retry?: CompiledRetry;
  /** Another endpoint for a retry, avoiding those tried; absent (or null) retries the same one (e.g. a pinned session). */
  nextEndpoint?: (tried: CompiledEndpoint[]) => CompiledEndpoint | null;
  /** The table's egress allow-list: an external endpoint outside it is never contacted. */
  allowedHostnames?: string[];
  /** Told the outcome of every try, for passive health. */
  onOutcome?: (endpoint: CompiledEndpoint, healthy: boolean) => void;
}

export interface SendResult {
  response: Response;
  endpoint: CompiledEndpoint;
  tries: number;
}

type Failure = { failed: "timeout" | "unreachable"; cause: unknown };

const enabled = (ms: number | undefined): number => (ms !== undefined && ms > 0 ? ms : Number.POSITIVE_INFINITY);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One send; a failure to connect or a timeout resolves to a Failure. Not async: one promise less per try. */
function tryOnce(plan: SendPlan, endpoint: CompiledEndpoint, limitMs: number): Promise<Response | Failure> {
  if (!egressAllowed(endpoint, plan.allowedHostnames)) {
    throw new GatewayError("EGRESS_NOT_ALLOWED", `upstream ${endpoint.id} is not in the egress allow-list`);
  }
  const send = fetcherFor(endpoint, plan.bindings);
  if (!send) {
    throw new GatewayError(
      "MTLS_BINDING_MISSING",
      `upstream ${endpoint.id} needs the mTLS certificate binding ${endpoint.mtlsBinding}, which this Worker does not have`,
    );
  }
  const body = bodyForSend(plan.body);
  let sending: Promise<Response>;
  try {
    sending = send(endpointUrl(endpoint, plan.upstream.pathAndQuery), {
      method: plan.upstream.method,
      headers: plan.upstream.headers,
      // A buffered body is copied per try: a sent body may not be readable again.
      body: body instanceof ArrayBuffer ? body.slice(0) : body,
      redirect: "manual",
      signal: Number.isFinite(limitMs) ? AbortSignal.timeout(limitMs) : undefined,
    });
  } catch (cause) {
    // A fetcher that throws at once has failed like one that rejects.
    sending = Promise.reject(cause);
  }
  return sending.catch((cause: unknown): Failure => {
    const timedOut = cause instanceof Error && (cause.name === "TimeoutError" || cause.name === "AbortError");
    return { failed: timedOut ? "timeout" : "unreachable", cause };
  });
}

/** Methods that may be sent twice without changing their effect (RFC 9110 §9.2.2). */
const IDEMPOTENT = new Set(["GET", "HEAD", "OPTIONS", "PUT", "DELETE", "TRACE"]);

export async function sendUpstream(plan: SendPlan): Promise<SendResult> {
  const requestMs = enabled(plan.timeouts?.requestMs);
  const backendMs = enabled(plan.timeouts?.backendRequestMs);
  const deadline = Number.isFinite(requestMs) ? plan.receivedAt + requestMs : Number.POSITIVE_INFINITY;
  const replayable = isReplayable(plan.body);
  const retries = plan.retry && replayable ? plan.retry.attempts : 0;
  // Without a retry policy, a connection failure still gets one more try elsewhere when that is safe.
  const safeToResend = IDEMPOTENT.has(plan.upstream.method) || plan.body.kind === "buffered";
  const failover = retries === 0 && replayable && plan.nextEndpoint && safeToResend ? 1 : 0;
  // A try that ran out of backendRequest time counts as a 504: retried only when the policy names 504.
  const timeoutRetries = plan.retry?.codes.includes(504) ? retries : 0;
  const connectionRetries = retries || failover;
  const tried: CompiledEndpoint[] = [];
  let endpoint = plan.endpoint;
  for (let attempt = 0; ; attempt++) {
    const remaining = Number.isFinite(deadline) ? deadline - Date.now() : deadline;
    if (remaining <= 0) throw new GatewayError("UPSTREAM_TIMEOUT", `no answer within the request timeout of ${requestMs} ms`);
    const limit = Math.min(backendMs, remaining);
    tried.push(endpoint);
    const outcome = await tryOnce(plan, endpoint, limit);
    plan.onOutcome?.(endpoint, outcome instanceof Response && outcome.status < 500);
    if (outcome instanceof Response) {
      if (attempt >= retries || !plan.retry?.codes.includes(outcome.status)) return { response: outcome, endpoint, tries: attempt + 1 };
      await outcome.body?.cancel();
    } else if (outcome.failed === "timeout") {
      if (limit === remaining) {
        throw new GatewayError("UPSTREAM_TIMEOUT", `no answer within the request timeout of ${requestMs} ms`, { cause: outcome.cause });
      }
      if (attempt >= timeoutRetries) {
        throw new GatewayError("UPSTREAM_TIMEOUT", `upstream ${endpoint.id} did not answer within ${limit} ms`, { cause: outcome.cause });
      }
    } else if (attempt >= connectionRetries) {
      throw new GatewayError("UPSTREAM_UNREACHABLE", `upstream ${endpoint.id} could not be reached`, { cause: outcome.cause });
    }
    const wait = Math.min(plan.retry?.backoffMs ?? 0, deadline - Date.now());
    if (wait > 0) await sleep(wait);
    endpoint = plan.nextEndpoint?.(tried) ?? endpoint;
  }
}
