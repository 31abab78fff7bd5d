/** @module Headers on the way to the origin and back: hop-by-hop removal, X-Forwarded-* and Forwarded. */

/**
 * RFC 9110 §7.6.1 connection-specific headers that the runtime's HTTP layer owns: it frames each
 * connection itself and passes on neither a Worker's copies nor an origin's, in either direction
 * (test/e2e/wire.test.ts checks that on the wire). Deleting them again would cost a runtime call
 * each on every request, so the gateway leaves them to it.
 */
const RUNTIME_OWNED: ReadonlySet<string> = new Set(["connection", "keep-alive", "te", "trailer", "transfer-encoding", "upgrade"]);

/** The hop-by-hop headers the runtime does pass on: the gateway removes these itself. */
export const PROXY_HOP_BY_HOP: readonly string[] = ["proxy-authenticate", "proxy-authorization", "proxy-connection"];

/** An RFC 9110 token: a header name a Connection header may list. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9a-z]+$/;

/**
 * The names a Connection header lists that the gateway must remove (lower-case): the runtime already
 * removes the ones it owns, and a listed word that is not a token names no header (deleting it would
 * throw). An option such as `close` is kept: deleting a header nobody sent is harmless.
 */
export function connectionListed(value: string): string[] {
  const names: string[] = [];
  for (const listed of value.split(",")) {
    const name = listed.trim().toLowerCase();
    if (TOKEN.test(name) && !RUNTIME_OWNED.has(name)) names.push(name);
  }
  return names;
}

/** Removes an origin's hop-by-hop headers that the runtime would pass on, including those its Connection header names. */
export function stripHopByHop(headers: Headers): void {
  const listed = headers.get("connection");
  if (listed) for (const name of connectionListed(listed)) headers.delete(name);
  for (const name of PROXY_HOP_BY_HOP) headers.delete(name);
}

export interface ForwardedFacts {
  /** CF-Connecting-IP: the client's address as Cloudflare saw it. */
  clientIp: string | undefined;
  proto: "http" | "https";
  host: string;
  requestId: string;
}

/** A Forwarded parameter value (RFC 7239 §4): a token as it is, anything else quoted; IPv6 in brackets. */
function forwardedValue(value: string, ip = false): string {
  const text = ip && value.includes(":") ? `[${value}]` : value;
  return /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(text) ? text : `"${text.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`;
}

/**
 * Sets X-Forwarded-For and Forwarded from the client's address (a client's own copies were dropped: anyone
 * can send them), X-Forwarded-Proto/-Host and X-Request-Id. A RequestHeaderModifier's X-Forwarded-For or
 * Forwarded is the route owner's: the client's address is appended to it.
 */
export function setForwardedHeaders(headers: Headers, facts: ForwardedFacts): void {
  const { clientIp } = facts;
  if (clientIp) {
    const set = headers.get("x-forwarded-for");
    headers.set("x-forwarded-for", set ? `${set}, ${clientIp}` : clientIp);
  }
  const element = [
    ...(clientIp ? [`for=${forwardedValue(clientIp, true)}`] : []),
    `host=${forwardedValue(facts.host)}`,
    `proto=${facts.proto}`,
  ].join(";");
  const forwarded = headers.get("forwarded");
  headers.set("forwarded", forwarded ? `${forwarded}, ${element}` : element);
  headers.set("x-forwarded-proto", facts.proto);
  // workerd ignores Host on an outbound fetch (the origin sees the URL's host), so the client's host travels here.
  headers.set("x-forwarded-host", facts.host);
  headers.set("x-request-id", facts.requestId);
}
