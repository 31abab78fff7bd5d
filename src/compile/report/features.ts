/**
 * @module What kedge supports, in the vocabulary of Gateway API's `SupportedFeatures` (pkg/features of the
 * Gateway API release, and the feature names its conformance tests ask for). The GatewayClass status
 * lists the supported ones; the features table of docs/gateway-api.md is this list, each supported feature with the
 * test that shows it, each other one with why not: the platform cannot, or kedge has not built it.
 */

export type Support = { supported: true; test: string } | { supported: false; because: "platform" | "not built"; why: string };

export interface Feature {
  name: string;
  support: Support;
}

const yes = (test: string): Support => ({ supported: true, test });
const platform = (why: string): Support => ({ supported: false, because: "platform", why });
const notBuilt = (why: string): Support => ({ supported: false, because: "not built", why });

const CASES = "test/cases/conformance.cases.ts";
const FILTERS = "test/cases/filters.cases.ts";

/** Every upstream feature name for Gateways and HTTP routing, and the route kinds an HTTP edge meets. */
export const FEATURES: readonly Feature[] = [
  { name: "Gateway", support: yes("test/worker/conformance.test.ts") },
  { name: "GatewayPort8080", support: yes(`${CASES} › HTTPRouteListenerPortMatching`) },
  { name: "GatewayHTTPListenerIsolation", support: yes(`${CASES} › HTTPRouteListenerHostnameMatching`) },
  {
    name: "GatewayHTTPSListenerDetectMisdirectedRequests",
    support: platform("a Worker is not told the TLS SNI, so it cannot compare it with the Host header"),
  },
  { name: "GatewayStaticAddresses", support: platform("Cloudflare owns the edge's addresses; a Gateway cannot ask for its own") },
  { name: "GatewayAddressEmpty", support: platform("Cloudflare owns the edge's addresses; spec.addresses is not allocated") },
  { name: "GatewayInfrastructurePropagation", support: platform("the edge creates no infrastructure objects to label or annotate") },
  { name: "ListenerSet", support: yes("test/unit/listener-sets.test.ts") },
  {
    name: "GatewayBackendClientCertificate",
    support: notBuilt("Gateway-wide backend client certificates; an XBackend's clientCertificateRef is supported"),
  },
  { name: "GatewayFrontendClientCertificateValidation", support: yes("test/worker/client-certificates.test.ts") },
  { name: "GatewayFrontendClientCertificateValidationInsecureFallback", support: yes("test/worker/client-certificates.test.ts") },
  { name: "ReferenceGrant", support: yes("test/fixtures/compile/rejections.in.yaml") },
  { name: "HTTPRoute", support: yes(`${CASES} › HTTPRouteMatching`) },
  { name: "HTTPRouteQueryParamMatching", support: yes(`${CASES} › HTTPRouteQueryParamMatching`) },
  { name: "HTTPRouteMethodMatching", support: yes(`${CASES} › HTTPRouteMethodMatching`) },
  { name: "HTTPRouteDestinationPortMatching", support: yes(`${CASES} › HTTPRouteListenerPortMatching`) },
  { name: "HTTPRouteParentRefPort", support: yes("test/fixtures/compile/rejections.in.yaml") },
  { name: "HTTPRouteNamedRouteRule", support: yes("test/unit/compile-golden.test.ts") },
  { name: "HTTPRouteResponseHeaderModification", support: yes(`${FILTERS} › HTTPRouteResponseHeaderModifier`) },
  { name: "HTTPRouteBackendRequestHeaderModification", support: yes(`${FILTERS} › HTTPRouteBackendRequestHeaderModifier`) },
  { name: "HTTPRoutePortRedirect", support: yes(`${FILTERS} › HTTPRouteRedirectPortAndScheme`) },
  { name: "HTTPRouteSchemeRedirect", support: yes(`${FILTERS} › HTTPRouteRedirectPortAndScheme`) },
  { name: "HTTPRoutePathRedirect", support: yes(`${FILTERS} › HTTPRouteRedirectPath`) },
  { name: "HTTPRoute303RedirectStatusCode", support: yes(`${FILTERS} › HTTPRouteRedirectPath`) },
  { name: "HTTPRoute307RedirectStatusCode", support: yes(`${FILTERS} › HTTPRouteRedirectPath`) },
  { name: "HTTPRoute308RedirectStatusCode", support: yes(`${FILTERS} › HTTPRouteRedirectPath`) },
  {
    name: "HTTPRouteHostRewrite",
    support: platform(
      "a Worker's fetch() sends the URL's host: the rewritten host reaches the origin as Host only for endpoints with keepClientHost in your zone, else as X-Forwarded-Host",
    ),
  },
  { name: "HTTPRoutePathRewrite", support: yes(`${FILTERS} › HTTPRouteRewritePath`) },
  { name: "HTTPRouteRequestMirror", support: yes("test/worker/conformance-filters.test.ts › HTTPRouteRequestMirror") },
  { name: "HTTPRouteRequestMultipleMirrors", support: yes("test/worker/conformance-filters.test.ts › HTTPRouteRequestMirror") },
  { name: "HTTPRouteRequestPercentageMirror", support: yes("test/worker/conformance-filters.test.ts › HTTPRouteRequestMirror") },
  { name: "HTTPRouteRequestTimeout", support: yes(`${FILTERS} › HTTPRouteTimeoutRequest`) },
  { name: "HTTPRouteBackendTimeout", support: yes(`${FILTERS} › HTTPRouteTimeoutBackendRequest`) },
  { name: "HTTPRouteBackendRequestRedirect", support: yes(`${FILTERS} › HTTPRouteBackendRequestRedirect`) },
  { name: "HTTPRouteBackendURLRewrite", support: yes(`${FILTERS} › HTTPRouteBackendURLRewrite`) },
  // Gateway API v1.7's names (GEP-1731, Standard): HTTPRouteRetry became HTTPRouteRetryCodes, and
  // HTTPRouteRetryBackendTimeout is no longer a feature (a try out of backendRequest time is still retried:
  // filters.cases.ts › HTTPRouteRetryWithTimeouts; `attempts: 0`: test/worker/retry-attempts.test.ts).
  { name: "HTTPRouteRetryCodes", support: yes(`${FILTERS} › HTTPRouteRetry: listed codes are retried`) },
  { name: "HTTPRouteRetryConnectionError", support: yes(`${FILTERS} › HTTPRouteRetryConnectionError`) },
  { name: "HTTPRouteCORS", support: yes("test/worker/cors.test.ts") },
  // The pending session-persistence conformance tests' names (gateway-api PR #4954); header sessions have none yet.
  { name: "CookieSessionPersistence", support: yes("test/worker/sessions.test.ts › cookie sessions") },
  { name: "CookieSessionPersistencePermanentLifetime", support: yes("test/worker/sessions.test.ts › cookie sessions") },
  { name: "HTTPRouteBackendProtocolWebSocket", support: yes("test/e2e/sync-and-serve.test.ts › WebSocket") },
  {
    name: "HTTPRouteBackendProtocolH2C",
    support: platform("a Worker's fetch() cannot speak cleartext HTTP/2 (h2c) to an upstream; such a backendRef is UnsupportedProtocol"),
  },
  { name: "ServiceImport", support: yes("test/unit/multi-cluster.test.ts › ServiceImport") },
  { name: "BackendTLSPolicy", support: yes("test/e2e/backend-tls.test.ts") },
  { name: "BackendTLSPolicySANValidation", support: platform("a Worker validates an upstream certificate for the URL's host only") },
  { name: "GRPCRoute", support: platform("gRPC needs HTTP/2 with trailers end to end, which a Worker's fetch() does not speak") },
  { name: "TLSRoute", support: platform("Cloudflare terminates TLS before the Worker, so there is no TLS stream to route by SNI") },
  { name: "TCPRoute", support: platform("a Worker proxies HTTP requests, not TCP connections") },
  { name: "UDPRoute", support: platform("a Worker proxies HTTP requests, not UDP") },
  { name: "Mesh", support: platform("kedge is an edge gateway, not a service mesh") },
];

/** The names of the supported features, in upstream's vocabulary (what a GatewayClass status lists). */
export const supportedFeatures = (): string[] =>
  FEATURES.filter((f) => f.support.supported)
    .map((f) => f.name)
    .sort();
