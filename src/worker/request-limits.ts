/**
 * @module Requests the gateway refuses before routing: an over-long URL (414), over-large headers (431),
 * and internal headers a client must not be able to set (stripped, not refused).
 */
import { GatewayError } from "./errors";

/** Longest URL (scheme, host, path and query) accepted. */
export const MAX_URL_BYTES = 8 * 1024;
/** Largest total of header names and values accepted. */
export const MAX_HEADER_BYTES = 32 * 1024;

/** Header names in this namespace belong to the gateway; a client's never reach an origin. */
const INTERNAL_PREFIX = "x-kedge-";

export function checkRequestLimits(request: Request): void {
  if (request.url.length > MAX_URL_BYTES) {
    throw new GatewayError("URI_TOO_LONG", `the URL is ${request.url.length} bytes; at most ${MAX_URL_BYTES} are accepted`);
  }
  let bytes = 0;
  for (const [name, value] of request.headers) bytes += name.length + value.length;
  if (bytes > MAX_HEADER_BYTES) {
    throw new GatewayError("HEADERS_TOO_LARGE", `the request headers are ${bytes} bytes; at most ${MAX_HEADER_BYTES} are accepted`);
  }
}

/** Removes headers a client may not smuggle to an origin. */
export function stripInternalHeaders(headers: Headers): void {
  const internal = [...headers.keys()].filter((name) => name.startsWith(INTERNAL_PREFIX));
  for (const name of internal) headers.delete(name);
}
