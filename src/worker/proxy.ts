/**
 * @module Forwards a matched request to one endpoint: filters, path rewrite, forwarding headers,
 * streaming body, timeout. Upstream failures become GatewayErrors (502/504), never a crash.
 */
import { applyHeaderModifier } from "../routing/header-modifier";
import { modifyPath } from "../routing/rewrite-path";
import type { CompiledEndpoint, CompiledFilter, CompiledRule } from "../table/route-table";
import { GatewayError } from "./errors";
import { setForwardedHeaders, stripHopByHop } from "./forwarding-headers";

export interface ProxyInput {
  request: Request;
  url: URL;
  host: string;
  requestId: string;
  rule: CompiledRule;
  /** Filters of the chosen backendRef; they run after the rule's. */
  backendFilters: CompiledFilter[];
  endpoint: CompiledEndpoint;
  /** The Worker's bindings: an XBackend with a client certificate is reached through its mTLS binding. */
  bindings: object;
}

const isWebSocket = (req: Request): boolean => req.headers.get("upgrade")?.toLowerCase() === "websocket";

function endpointOrigin(e: CompiledEndpoint): string {
  const host = e.host.includes(":") ? `[${e.host}]` : e.host;
  return `${e.scheme}://${host}:${e.port}`;
}

/**
 * Workers present a client certificate only through an mTLS certificate binding's own fetch(), so an
 * endpoint that needs one is fetched through the binding its XBackend's clientCertificateRef maps to.
 */
function upstreamFetcher(endpoint: CompiledEndpoint, bindings: object): typeof fetch {
  if (!endpoint.mtlsBinding) return fetch;
  const binding = (bindings as Record<string, unknown>)[endpoint.mtlsBinding] as Fetcher | undefined;
  if (typeof binding?.fetch !== "function") {
    throw new GatewayError(
      "MTLS_BINDING_MISSING",
      `upstream ${endpoint.id} needs the mTLS certificate binding ${endpoint.mtlsBinding}, which this Worker does not have`,
    );
  }
  return (input, init) => binding.fetch(input as RequestInfo, init);
}

function timeoutMs(rule: CompiledRule): number | undefined {
  const { requestMs, backendRequestMs } = rule.timeouts ?? {};
  const limits = [requestMs, backendRequestMs].filter((ms): ms is number => ms !== undefined && ms > 0);
  return limits.length > 0 ? Math.min(...limits) : undefined;
}

/** Sends the request upstream and returns the origin's response (streamed). */
export async function proxyToEndpoint(input: ProxyInput): Promise<Response> {
  const { request, url, rule, endpoint } = input;
  const filters = [...rule.filters, ...input.backendFilters];
  const headers = new Headers(request.headers);
  const webSocket = isWebSocket(request);
  stripHopByHop(headers, webSocket);
  let path = url.pathname;
  let host = input.host;
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
    requestId: input.requestId,
  });
  const target = `${endpointOrigin(endpoint)}${path}${url.search}`;
  const limit = timeoutMs(rule);
  const hasBody = request.method !== "GET" && request.method !== "HEAD";
  const send = upstreamFetcher(endpoint, input.bindings);
  let upstream: Response;
  try {
    upstream = await send(target, {
      method: request.method,
      headers,
      body: hasBody ? request.body : undefined,
      redirect: "manual",
      signal: limit ? AbortSignal.timeout(limit) : undefined,
    });
  } catch (error) {
    const timedOut = error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError");
    if (timedOut) throw new GatewayError("UPSTREAM_TIMEOUT", `upstream ${endpoint.id} did not answer within ${limit} ms`, { cause: error });
    throw new GatewayError("UPSTREAM_UNREACHABLE", `upstream ${endpoint.id} could not be reached`, { cause: error });
  }
  if (webSocket && upstream.status === 101) return upstream;
  const responseHeaders = new Headers(upstream.headers);
  stripHopByHop(responseHeaders);
  for (const f of filters) if (f.type === "ResponseHeaderModifier") applyHeaderModifier(responseHeaders, f.modifier);
  responseHeaders.set("x-request-id", input.requestId);
  return new Response(upstream.body, { status: upstream.status, statusText: upstream.statusText, headers: responseHeaders });
}
