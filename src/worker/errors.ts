/**
 * @module Errors the gateway answers with. The wire only ever sees `{ error, message, requestId }`
 * with a stable code; details (stacks, upstream errors) go to the logs.
 */
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";

export const ERROR_CODES = {
  ROUTE_TABLE_UNAVAILABLE: 503,
  ROUTE_NOT_FOUND: 404,
  BACKEND_NOT_RESOLVED: 500,
  NO_BACKEND: 500,
  INVALID_RULE: 500,
  NO_HEALTHY_ENDPOINT: 503,
  UPSTREAM_UNREACHABLE: 502,
  UPSTREAM_TIMEOUT: 504,
  UPSTREAM_INTERIM_RESPONSE: 502,
  MTLS_BINDING_MISSING: 502,
  BAD_REQUEST: 400,
  URI_TOO_LONG: 414,
  HEADERS_TOO_LARGE: 431,
  UNAUTHORIZED: 401,
  EGRESS_NOT_ALLOWED: 502,
  INTERNAL_ERROR: 500,
} as const satisfies Record<string, ContentfulStatusCode>;

export type ErrorCode = keyof typeof ERROR_CODES;

export class GatewayError extends HTTPException {
  override name = "GatewayError";
  constructor(
    readonly code: ErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(ERROR_CODES[code], { message, cause: options?.cause });
  }
}

/** The JSON error body every error response carries. */
export function errorResponse(code: ErrorCode, message: string, requestId: string): Response {
  return new Response(JSON.stringify({ error: code, message, requestId }), {
    status: ERROR_CODES[code],
    headers: { "content-type": "application/json; charset=utf-8", "x-request-id": requestId },
  });
}
