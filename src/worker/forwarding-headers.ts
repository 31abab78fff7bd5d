/** @module Headers on the way to the origin and back: hop-by-hop removal and X-Forwarded-*. */

/** RFC 9110 §7.6.1 connection-specific headers, never forwarded. */
const HOP_BY_HOP = [
  "connection",
  "keep-alive",
  "proxy-connection",
  "proxy-authenticate",
  "proxy-authorization",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
];

/** Removes hop-by-hop headers, including those the Connection header names. Keeps Upgrade for WebSockets. */
export function stripHopByHop(headers: Headers, keepUpgrade = false): void {
  const listed = headers.get("connection");
  if (listed) for (const name of listed.split(",")) headers.delete(name.trim());
  for (const name of HOP_BY_HOP) if (!(keepUpgrade && name === "upgrade")) headers.delete(name);
}

export interface ForwardedFacts {
  clientIp: string | null;
  proto: "http" | "https";
  host: string;
  requestId: string;
}

/** Appends the client to X-Forwarded-For and sets X-Forwarded-Proto/-Host and X-Request-Id. */
export function setForwardedHeaders(headers: Headers, facts: ForwardedFacts): void {
  if (facts.clientIp) {
    const prior = headers.get("x-forwarded-for");
    headers.set("x-forwarded-for", prior ? `${prior}, ${facts.clientIp}` : facts.clientIp);
  }
  headers.set("x-forwarded-proto", facts.proto);
  // workerd ignores Host on an outbound fetch (the origin sees the URL's host), so the client's host travels here.
  headers.set("x-forwarded-host", facts.host);
  headers.set("x-request-id", facts.requestId);
}
