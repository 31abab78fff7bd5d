/**
 * @module Errors the gateway answers with. The wire only ever sees `{ error, message, requestId }`: a
 * stable code and a fixed sentence per code, never an endpoint, cluster, backend, rule or table name.
 * What happened in detail (those names, upstream errors, stacks) goes to the log line with the request id.
 */
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";

/** Each code's status and the sentence a client reads. */
export const ERRORS = {
  ROUTE_TABLE_UNAVAILABLE: [503, "the gateway has no routing table to serve yet"],
  ROUTE_NOT_FOUND: [404, "no route matches this request"],
  BACKEND_NOT_RESOLVED: [500, "the backend for this request is not configured correctly"],
  NO_BACKEND: [500, "this route has no backend to send the request to"],
  INVALID_RULE: [500, "the rule matching this request was rejected by its configuration"],
  NO_HEALTHY_ENDPOINT: [503, "no server is available for this request"],
  // Gateway API conformance (HTTPRouteRetryConnectionError) expects 500 or 503 when no try connects.
  UPSTREAM_UNREACHABLE: [503, "the upstream server could not be reached"],
  UPSTREAM_TIMEOUT: [504, "the upstream server did not answer in time"],
  // GEP-3388: once a backend's retry budget is spent, a retry it would have made answers 503.
  RETRY_BUDGET_EXCEEDED: [503, "the upstream server is failing and its retry budget is spent"],
  UPSTREAM_INTERIM_RESPONSE: [502, "the upstream server sent a response the gateway cannot forward"],
  MTLS_BINDING_MISSING: [502, "the gateway lacks the client certificate this upstream requires"],
  NETWORK_BINDING_MISSING: [502, "the gateway lacks the network connection this upstream requires"],
  BAD_REQUEST: [400, "the request is malformed"],
  URI_TOO_LONG: [414, "the request URL is too long"],
  HEADERS_TOO_LARGE: [431, "the request headers are too large"],
  UNAUTHORIZED: [401, "a valid token is required"],
  CLIENT_CERTIFICATE_REQUIRED: [403, "a valid client certificate is required"],
  EGRESS_NOT_ALLOWED: [502, "the gateway may not contact the upstream server for this request"],
  INTERNAL_ERROR: [500, "the gateway failed to handle this request"],
} as const satisfies Record<string, readonly [ContentfulStatusCode, string]>;

export type ErrorCode = keyof typeof ERRORS;

/**
 * A failure the gateway answers itself. `detail` names what failed (for the log line only); the client
 * gets the code's fixed sentence.
 */
export class GatewayError extends HTTPException {
  override name = "GatewayError";
  constructor(
    readonly code: ErrorCode,
    readonly detail: string,
    options?: { cause?: unknown },
  ) {
    super(ERRORS[code][0], { message: detail, cause: options?.cause });
  }
}

/** The JSON error body every error response carries. */
export function errorResponse(code: ErrorCode, requestId: string): Response {
  const [status, message] = ERRORS[code];
  const headers: Record<string, string> = { "content-type": "application/json; charset=utf-8", "x-request-id": requestId };
  // A 401 says how to authenticate (RFC 9110 section 15.5.2): the status endpoint takes a bearer token.
  if (status === 401) headers["www-authenticate"] = 'Bearer realm="kedge status"';
  return new Response(JSON.stringify({ error: code, message, requestId }), { status, headers });
}
