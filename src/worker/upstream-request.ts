/**
 * @module What goes upstream for one request after the rule's and the backendRef's request filters:
 * path (URLRewrite), headers (RequestHeaderModifier, hop-by-hop removal, X-Forwarded-*), and the
 * host the client asked for (or the URLRewrite hostname).
 */
import { applyHeaderModifier } from "../routing/header-modifier";
import { modifyPath } from "../routing/rewrite-path";
import type { CompiledEndpoint, CompiledFilter } from "../table/route-table";
import { setForwardedHeaders, stripHopByHop } from "./forwarding-headers";
import { stripInternalHeaders } from "./request-limits";

export interface UpstreamRequest {
  method: string;
  /** Path and query, e.g. `/a/b?x=1`. */
  pathAndQuery: string;
  headers: Headers;
  webSocket: boolean;
}

export interface RequestFacts {
  request: Request;
  url: URL;
  host: string;
  requestId: string;
}

const isWebSocket = (req: Request): boolean => req.headers.get("upgrade")?.toLowerCase() === "websocket";

/** Applies request filters in order (header modifiers, URL rewrites) and sets the forwarding headers. */
export function buildUpstreamRequest(facts: RequestFacts, filters: CompiledFilter[]): UpstreamRequest {
  const { request, url } = facts;
  const headers = new Headers(request.headers);
  const webSocket = isWebSocket(request);
  stripHopByHop(headers, webSocket);
  stripInternalHeaders(headers);
  let path = url.pathname;
  let host = facts.host;
  for (const f of filters) {
    if (f.type === "RequestHeaderModifier") applyHeaderModifier(headers, f.modifier);
    else if (f.type === "URLRewrite") {
      path = modifyPath(path, f.path);
      host = f.hostname ?? host;
    }
  }
  setForwardedHeaders(headers, {
    clientIp: request.headers.get("cf-connecting-ip"),
    proto: url.protocol === "https:" ? "https" : "http",
    host,
    requestId: facts.requestId,
  });
  return { method: request.method, pathAndQuery: `${path}${url.search}`, headers, webSocket };
}

export function endpointUrl(e: CompiledEndpoint, pathAndQuery: string): string {
  const host = e.host.includes(":") ? `[${e.host}]` : e.host;
  return `${e.scheme}://${host}:${e.port}${pathAndQuery}`;
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
