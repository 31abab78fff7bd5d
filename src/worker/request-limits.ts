/** @module Requests the gateway refuses before routing: an over-long URL (414), over-large headers (431). */
import type { ClientHeaders } from "./client-headers";
import { GatewayError } from "./errors";

/** Longest URL (scheme, host, path and query) accepted. */
export const MAX_URL_BYTES = 8 * 1024;
/** Largest total of header names and values accepted. */
export const MAX_HEADER_BYTES = 32 * 1024;

export function checkRequestLimits(href: string, headers: ClientHeaders): void {
  if (href.length > MAX_URL_BYTES) {
    throw new GatewayError("URI_TOO_LONG", `the URL is ${href.length} bytes; at most ${MAX_URL_BYTES} are accepted`);
  }
  if (headers.bytes > MAX_HEADER_BYTES) {
    throw new GatewayError("HEADERS_TOO_LARGE", `the request headers are ${headers.bytes} bytes; at most ${MAX_HEADER_BYTES} are accepted`);
  }
}
