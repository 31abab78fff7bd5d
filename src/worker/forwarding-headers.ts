/** @module Headers on the way to the origin and back: hop-by-hop removal and X-Forwarded-*. */

/** RFC 9110 §7.6.1 connection-specific headers, never forwarded. */
export const HOP_BY_HOP: ReadonlySet<string> = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "proxy-authenticate",
  "proxy-authorization",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
]);

/** Removes an origin's hop-by-hop headers, including those its Connection header names. */
export function stripHopByHop(headers: Headers): void {
  const listed = headers.get("connection");
  if (listed) for (const name of listed.split(",")) headers.delete(name.trim());
  for (const name of HOP_BY_HOP) headers.delete(name);
}

export interface ForwardedFacts {
  clientIp: string | undefined;
  /** The client's X-Forwarded-For, which the client's address is appended to. */
  forwardedFor: string | undefined;
  proto: "http" | "https";
  host: string;
  requestId: string;
}

/** Appends the client to X-Forwarded-For and sets X-Forwarded-Proto/-Host and X-Request-Id. */
export function setForwardedHeaders(headers: Headers, facts: ForwardedFacts): void {
  if (facts.clientIp) {
    headers.set("x-forwarded-for", facts.forwardedFor ? `${facts.forwardedFor}, ${facts.clientIp}` : facts.clientIp);
  }
  headers.set("x-forwarded-proto", facts.proto);
  // workerd ignores Host on an outbound fetch (the origin sees the URL's host), so the client's host travels here.
  headers.set("x-forwarded-host", facts.host);
  headers.set("x-request-id", facts.requestId);
}
