/**
 * @module What goes upstream for one request after the rule's and the backendRef's request filters:
 * path (URLRewrite), headers (RequestHeaderModifier, hop-by-hop removal, X-Forwarded-*), and the
 * host the client asked for (or the URLRewrite hostname).
 */
import type { RequestEdit } from "../routing/filter-slots";
import { applyHeaderModifier } from "../routing/header-modifier";
import { modifyPath } from "../routing/rewrite-path";
import type { ClientHeaders } from "./client-headers";
import type { RequestLine } from "./request-line";
import { setForwardedHeaders } from "./forwarding-headers";

/** The request line and headers to send upstream (the body is read apart). */
export interface UpstreamRequest {
  method: string;
  /** Path and query, e.g. `/a/b?x=1`. */
  pathAndQuery: string;
  headers: Headers;
  /** The host the origin is to see (the client's, or a URLRewrite's hostname), without a port. */
  originHost: string;
}

export interface RequestFacts {
  request: Request;
  line: RequestLine;
  requestId: string;
  /** What the one pass over the client's headers found. */
  clientHeaders: ClientHeaders;
  /** When the gateway received the request (Date.now()); a rule's request timeout counts from here. */
  receivedAt: number;
}

/** Applies the request edits in order (header modifiers, URL rewrites) and sets the forwarding headers. */
export function buildUpstreamRequest(facts: RequestFacts, edits: RequestEdit[]): UpstreamRequest {
  const { request, line, clientHeaders } = facts;
  const headers = new Headers(request.headers);
  for (const name of clientHeaders.dropped) headers.delete(name);
  let path = line.path;
  // The client's Host as it was sent, port included, unless a URLRewrite names another.
  let host = line.authority;
  let originHost = line.host;
  for (const f of edits) {
    if (f.type === "RequestHeaderModifier") applyHeaderModifier(headers, f.modifier);
    else if (f.type === "URLRewrite") {
      path = modifyPath(path, f.path);
      host = f.hostname ?? host;
      originHost = f.hostname ?? originHost;
    }
  }
  setForwardedHeaders(headers, {
    clientIp: clientHeaders.connectingIp,
    proto: line.scheme,
    host,
    requestId: facts.requestId,
  });
  return { method: line.method, pathAndQuery: `${path}${line.search}`, headers, originHost };
}
