/**
 * @module The CORS filter (GEP-1767): whether an Origin is allowed, the gateway's answer to a preflight,
 * and the headers added to an actual cross-origin response. An origin not allowed gets no CORS headers,
 * so the browser refuses the response; the request itself is still served (CORS is the browser's rule).
 */
import type { CompiledFilter } from "../table/route-table";

export type CorsFilter = Extract<CompiledFilter, { type: "CORS" }>;

/** Compiled wildcard origins, kept for the isolate's life: patterns come from the table, so they are few. */
const compiledOrigins = new Map<string, RegExp>();

function originPattern(pattern: string): RegExp {
  let compiled = compiledOrigins.get(pattern);
  if (!compiled) {
    // "https://*.example.com": the * stands for one or more host labels.
    const escaped = pattern.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace("*", "[a-z0-9-]+(?:\\.[a-z0-9-]+)*");
    compiled = new RegExp(`^${escaped}$`);
    compiledOrigins.set(pattern, compiled);
  }
  return compiled;
}

export function originAllowed(cors: CorsFilter, origin: string): boolean {
  const lower = origin.toLowerCase();
  return cors.allowOrigins.some((p) => p === "*" || p === lower || (p.includes("*") && originPattern(p).test(lower)));
}

/** Headers common to preflight and actual responses for an allowed origin. */
function allowOriginHeaders(cors: CorsFilter, origin: string): Record<string, string> {
  const wildcard = cors.allowOrigins[0] === "*" && !cors.allowCredentials;
  return {
    "access-control-allow-origin": wildcard ? "*" : origin,
    ...(cors.allowCredentials ? { "access-control-allow-credentials": "true" } : {}),
  };
}

/** The gateway's answer to a preflight (OPTIONS with Access-Control-Request-Method). */
export function preflightHeaders(cors: CorsFilter, origin: string | null, requestHeaders: Headers): Record<string, string> {
  const vary = { vary: "Origin, Access-Control-Request-Method, Access-Control-Request-Headers" };
  if (!origin || !originAllowed(cors, origin)) return vary;
  const requestedMethod = requestHeaders.get("access-control-request-method") ?? "";
  const requestedHeaders = requestHeaders.get("access-control-request-headers");
  // With credentials, browsers do not accept "*": name what was asked for instead.
  const methods = cors.allowMethods[0] === "*" ? (cors.allowCredentials ? requestedMethod : "*") : cors.allowMethods.join(", ");
  const headers = cors.allowHeaders[0] === "*" ? (cors.allowCredentials ? (requestedHeaders ?? "") : "*") : cors.allowHeaders.join(", ");
  // Browsers read it from the actual response; Gateway API's conformance (HTTPRouteCORS) expects it on the preflight too.
  const expose = cors.exposeHeaders.join(", ");
  return {
    ...vary,
    ...allowOriginHeaders(cors, origin),
    ...(methods ? { "access-control-allow-methods": methods } : {}),
    ...(headers ? { "access-control-allow-headers": headers } : {}),
    ...(expose ? { "access-control-expose-headers": expose } : {}),
    "access-control-max-age": String(cors.maxAge),
  };
}

/** Headers added to the response of an actual request from an allowed origin. */
export function actualResponseHeaders(cors: CorsFilter, origin: string | null): Record<string, string> {
  if (!origin || !originAllowed(cors, origin)) return {};
  const expose = cors.exposeHeaders.join(", ");
  return { ...allowOriginHeaders(cors, origin), ...(expose ? { "access-control-expose-headers": expose } : {}) };
}
