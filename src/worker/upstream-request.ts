/**
 * @module What goes upstream for one request after the rule's and the backendRef's request filters:
 * path (URLRewrite), headers (RequestHeaderModifier, hop-by-hop removal, X-Forwarded-*), and the
 * host the client asked for (or the URLRewrite hostname).
 */
import { applyHeaderModifier } from "../routing/header-modifier";
import { hostnameMatches } from "../routing/hostname-match";
import { modifyPath } from "../routing/rewrite-path";
import type { CompiledEndpoint, CompiledFilter } from "../table/route-table";
import type { ClientHeaders } from "./client-headers";
import type { RequestLine } from "./request-line";
import { setForwardedHeaders } from "./forwarding-headers";

export interface UpstreamRequest {
  method: string;
  /** Path and query, e.g. `/a/b?x=1`. */
  pathAndQuery: string;
  headers: Headers;
  webSocket: boolean;
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

/** Applies request filters in order (header modifiers, URL rewrites) and sets the forwarding headers. */
export function buildUpstreamRequest(facts: RequestFacts, filters: CompiledFilter[]): UpstreamRequest {
  const { request, line, clientHeaders } = facts;
  const headers = new Headers(request.headers);
  for (const name of clientHeaders.dropped) headers.delete(name);
  let path = line.path;
  let host = line.host;
  let forwardedFor = clientHeaders.forwardedFor;
  for (const f of filters) {
    if (f.type === "RequestHeaderModifier") {
      applyHeaderModifier(headers, f.modifier);
      // The client's address joins the X-Forwarded-For the filters left.
      forwardedFor = headers.get("x-forwarded-for") ?? undefined;
    } else if (f.type === "URLRewrite") {
      path = modifyPath(path, f.path);
      host = f.hostname ?? host;
    }
  }
  setForwardedHeaders(headers, {
    clientIp: clientHeaders.connectingIp,
    forwardedFor,
    proto: line.scheme,
    host,
    requestId: facts.requestId,
  });
  return { method: line.method, pathAndQuery: `${path}${line.search}`, headers, webSocket: clientHeaders.webSocket };
}

export function endpointUrl(e: CompiledEndpoint, pathAndQuery: string): string {
  const host = e.host.includes(":") ? `[${e.host}]` : e.host;
  return `${e.scheme}://${host}:${e.port}${pathAndQuery}`;
}

/**
 * Whether the Worker may contact this endpoint: a cluster's endpoints always; an external (XBackend) one
 * only inside the table's egress allow-list, when it has one. The sync refuses such XBackends already;
 * every send, mirror and health probe checks again.
 */
export function egressAllowed(endpoint: CompiledEndpoint, allowedHostnames: string[] | undefined): boolean {
  return !endpoint.external || !allowedHostnames || allowedHostnames.some((pattern) => hostnameMatches(pattern, endpoint.host));
}

/**
 * Workers present a client certificate only through an mTLS certificate binding's own fetch(), so an
 * endpoint that needs one is fetched through the binding its XBackend's clientCertificateRef maps to.
 * Returns null when the Worker lacks that binding.
 */
export function fetcherFor(endpoint: CompiledEndpoint, bindings: object): typeof fetch | null {
  if (!endpoint.mtlsBinding) return fetch;
  const binding = (bindings as Record<string, unknown>)[endpoint.mtlsBinding] as Fetcher | undefined;
  if (typeof binding?.fetch !== "function") return null;
  return (input, init) => binding.fetch(input as RequestInfo, init);
}
