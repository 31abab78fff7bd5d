/**
 * @module Request tables for the conformance scenarios about what happens to a matched request
 * (semantics brief §7.10-7.14): weights, header modifiers, redirects, rewrites, missing backends,
 * timeouts, retries and mirrors. Each runs against the real Worker and loopback echo origins.
 */
import { conformanceManifest } from "../support/conformance-infra";

type Backend = "v1" | "v2" | "v3";

export interface Exchange {
  /** Host, optionally with a port (`example.org:8080`); default example.org. */
  host?: string;
  scheme?: "http" | "https";
  path: string;
  method?: string;
  headers?: Record<string, string>;
  expect: {
    /** Default 200. */
    status?: number;
    backend?: Backend;
    /** The path (without query) the backend saw. */
    upstreamPath?: string;
    /** Headers the backend saw; null means absent. Names compare case-insensitively. */
    upstreamHeaders?: Record<string, string | null>;
    responseHeaders?: Record<string, string | null>;
    location?: string;
    /** The JSON error code of a gateway error. */
    error?: string;
  };
}

export interface FilterCase {
  name: string;
  /** The case's manifests (test/fixtures/compile/conformance/<name>.in.yaml), added to the conformance base. */
  routes: string;
  requests: Exchange[];
}

/** A per-run key, so the origins' retry counters never see one request key twice. */
const RUN = Math.random().toString(36).slice(2, 10);

const HEADER_MODIFIER_REQUESTS: Exchange[] = [
  {
    path: "/set",
    headers: { "Some-Other-Header": "val" },
    expect: { backend: "v1", upstreamHeaders: { "x-header-set": "set-overwrites-values", "some-other-header": "val" } },
  },
  {
    path: "/set",
    headers: { "X-Header-Set": "some-other-value" },
    expect: { backend: "v1", upstreamHeaders: { "x-header-set": "set-overwrites-values" } },
  },
  { path: "/add", expect: { backend: "v1", upstreamHeaders: { "x-header-add": "add-appends-values" } } },
  {
    path: "/add",
    headers: { "X-Header-Add": "some-other-value" },
    expect: { backend: "v1", upstreamHeaders: { "x-header-add": "some-other-value,add-appends-values" } },
  },
  { path: "/remove", headers: { "X-Header-Remove": "val" }, expect: { backend: "v1", upstreamHeaders: { "x-header-remove": null } } },
  {
    path: "/multiple",
    headers: {
      "X-Header-Set-2": "set-val-2",
      "X-Header-Add-2": "add-val-2",
      "X-Header-Remove-2": "remove-val-2",
      "Another-Header": "another-header-val",
    },
    expect: {
      backend: "v1",
      upstreamHeaders: {
        "x-header-set-1": "header-set-1",
        "x-header-set-2": "header-set-2",
        "x-header-add-1": "header-add-1",
        "x-header-add-2": "add-val-2,header-add-2",
        "x-header-add-3": "header-add-3",
        "another-header": "another-header-val",
        "x-header-remove-1": null,
        "x-header-remove-2": null,
      },
    },
  },
  {
    path: "/case-insensitivity",
    headers: { "x-header-set": "original-val-set", "x-header-add": "original-val-add", "x-header-remove": "original-val-remove" },
    expect: {
      backend: "v1",
      upstreamHeaders: { "x-header-set": "header-set", "x-header-add": "original-val-add,header-add", "x-header-remove": null },
    },
  },
];

export const FILTER_CASES: FilterCase[] = [
  {
    name: "HTTPRouteRequestHeaderModifier: set, add, remove, several at once, any case",
    routes: conformanceManifest("httproute-request-header-modifier"),
    requests: HEADER_MODIFIER_REQUESTS,
  },
  {
    name: "HTTPRouteBackendRequestHeaderModifier: the same, as a backendRef filter",
    routes: conformanceManifest("httproute-request-header-modifier-backend"),
    requests: HEADER_MODIFIER_REQUESTS,
  },
  {
    name: "HTTPRouteResponseHeaderModifier: on what the backend answered, names in any case",
    routes: conformanceManifest("httproute-response-header-modifier"),
    requests: [
      {
        path: "/set",
        headers: { "X-Echo-Set-Header": "X-Header-Set:original" },
        expect: { backend: "v1", responseHeaders: { "x-header-set": "set-overwrites-values" } },
      },
      {
        path: "/add",
        headers: { "X-Echo-Set-Header": "X-Header-Add:original" },
        expect: {
          backend: "v1",
          responseHeaders: {
            "x-header-add": "original,add-appends-values",
            "x-lowercase-add": "one",
            "x-mixedcase-add-1": "two",
            "x-uppercase-add": "three",
          },
        },
      },
      {
        path: "/remove",
        headers: { "X-Echo-Set-Header": "X-Header-Remove:gone" },
        expect: { backend: "v1", responseHeaders: { "x-header-remove": null } },
      },
      {
        path: "/request-and-response",
        expect: { backend: "v1", upstreamHeaders: { "x-request-set": "req" }, responseHeaders: { "x-response-set": "resp" } },
      },
    ],
  },
  {
    name: "HTTPRouteRedirectPath, HostAndStatus and Scheme",
    routes: conformanceManifest("httproute-redirect-path-host-and-status"),
    requests: [
      {
        host: "redirect.example",
        path: "/original-prefix/lemon",
        expect: { status: 302, location: "http://redirect.example/replacement-prefix/lemon" },
      },
      {
        host: "redirect.example",
        path: "/full/path/original",
        expect: { status: 302, location: "http://redirect.example/full-path-replacement" },
      },
      { host: "redirect.example", path: "/path-and-host", expect: { status: 302, location: "http://example.org/replacement-prefix" } },
      {
        host: "redirect.example",
        path: "/path-and-status",
        expect: { status: 301, location: "http://redirect.example/replacement-prefix" },
      },
      { host: "redirect.example", path: "/full-path-and-host", expect: { status: 302, location: "http://example.org/replacement-full" } },
      {
        host: "redirect.example",
        path: "/full-path-and-status",
        expect: { status: 301, location: "http://redirect.example/replacement-full" },
      },
      { host: "redirect.example", path: "/hostname-redirect", expect: { status: 302, location: "http://example.org/hostname-redirect" } },
      { host: "redirect.example", path: "/host-and-status", expect: { status: 301, location: "http://example.org/host-and-status" } },
      { host: "redirect.example", path: "/scheme", expect: { status: 302, location: "https://redirect.example/scheme" } },
      { host: "redirect.example", path: "/scheme-and-host", expect: { status: 302, location: "https://example.org/scheme-and-host" } },
      {
        host: "redirect.example",
        path: "/scheme-and-status",
        expect: { status: 301, location: "https://redirect.example/scheme-and-status" },
      },
      { host: "redirect.example", path: "/port", expect: { status: 302, location: "http://redirect.example:8083/port" } },
      { host: "redirect.example", path: "/port-and-host", expect: { status: 302, location: "http://example.org:8083/port-and-host" } },
      {
        host: "redirect.example",
        path: "/see-other?x=1",
        method: "POST",
        expect: { status: 303, location: "http://redirect.example/see-other?x=1" },
      },
      { host: "redirect.example", path: "/temporary", expect: { status: 307, location: "http://redirect.example/temporary" } },
      { host: "redirect.example", path: "/permanent", expect: { status: 308, location: "http://redirect.example/permanent" } },
    ],
  },
  {
    name: "HTTPRouteRedirectPortAndScheme: explicit port, else the scheme's default, else the listener's port",
    routes: conformanceManifest("httproute-redirect-port-and-scheme"),
    requests: [
      { path: "/scheme-nil-and-port-nil", expect: { status: 302, location: "http://example.org/scheme-nil-and-port-nil" } },
      { path: "/scheme-nil-and-port-80", expect: { status: 302, location: "http://example.org/scheme-nil-and-port-80" } },
      { path: "/scheme-nil-and-port-8080", expect: { status: 302, location: "http://example.org:8080/scheme-nil-and-port-8080" } },
      { path: "/scheme-https-and-port-nil", expect: { status: 302, location: "https://example.org/scheme-https-and-port-nil" } },
      { path: "/scheme-https-and-port-443", expect: { status: 302, location: "https://example.org/scheme-https-and-port-443" } },
      { path: "/scheme-https-and-port-8443", expect: { status: 302, location: "https://example.org:8443/scheme-https-and-port-8443" } },
      {
        host: "example.org:8080",
        path: "/scheme-nil-and-port-nil",
        expect: { status: 302, location: "http://example.org:8080/scheme-nil-and-port-nil" },
      },
      {
        host: "example.org:8080",
        path: "/scheme-nil-and-port-80",
        expect: { status: 302, location: "http://example.org/scheme-nil-and-port-80" },
      },
      {
        host: "example.org:8080",
        path: "/scheme-https-and-port-nil",
        expect: { status: 302, location: "https://example.org/scheme-https-and-port-nil" },
      },
      {
        scheme: "https",
        path: "/scheme-nil-and-port-nil",
        expect: { status: 302, location: "https://example.org/scheme-nil-and-port-nil" },
      },
      {
        scheme: "https",
        path: "/scheme-nil-and-port-443",
        expect: { status: 302, location: "https://example.org/scheme-nil-and-port-443" },
      },
      {
        scheme: "https",
        path: "/scheme-nil-and-port-8443",
        expect: { status: 302, location: "https://example.org:8443/scheme-nil-and-port-8443" },
      },
      {
        scheme: "https",
        path: "/scheme-http-and-port-nil",
        expect: { status: 302, location: "http://example.org/scheme-http-and-port-nil" },
      },
      {
        scheme: "https",
        path: "/scheme-http-and-port-80",
        expect: { status: 302, location: "http://example.org/scheme-http-and-port-80" },
      },
      {
        scheme: "https",
        path: "/scheme-http-and-port-8080",
        expect: { status: 302, location: "http://example.org:8080/scheme-http-and-port-8080" },
      },
    ],
  },
  {
    name: "HTTPRouteBackendRequestRedirect: a redirect placed on the backendRef",
    routes: conformanceManifest("httproute-request-redirect-backend"),
    requests: [
      { path: "/full/original", expect: { status: 302, location: "http://example.org/redirected-full" } },
      { path: "/prefix/original", expect: { status: 302, location: "http://example.org/redirected-prefix/original" } },
    ],
  },
  {
    name: "HTTPRouteRewritePath: prefix and full-path rewrites, with header changes",
    routes: conformanceManifest("httproute-rewrite-path"),
    requests: [
      { path: "/prefix/one/two", expect: { backend: "v1", upstreamPath: "/one/two" } },
      { path: "/strip-prefix/three", expect: { backend: "v1", upstreamPath: "/three" } },
      { path: "/strip-prefix", expect: { backend: "v1", upstreamPath: "/" } },
      { path: "/full/one/two", expect: { backend: "v1", upstreamPath: "/one" } },
      ...["/full/rewrite-path-and-modify-headers/test", "/prefix/rewrite-path-and-modify-headers/one"].map((path): Exchange => ({
        path,
        headers: { "X-Header-Add-Append": "append-val-1", "X-Header-Remove": "remove-val" },
        expect: {
          backend: "v1",
          upstreamPath: path.startsWith("/full") ? "/test" : "/prefix/one",
          upstreamHeaders: {
            "x-header-set": "set-overwrites-values",
            "x-header-add": "header-val-1",
            "x-header-add-append": "append-val-1,header-val-2",
            "x-header-remove": null,
          },
        },
      })),
    ],
  },
  {
    name: "HTTPRouteRewriteHost: the rewritten host reaches the backend as X-Forwarded-Host",
    routes: conformanceManifest("httproute-rewrite-host"),
    requests: [
      { host: "rewrite.example", path: "/one", expect: { backend: "v1", upstreamHeaders: { "x-forwarded-host": "one.example.org" } } },
      { host: "rewrite.example", path: "/two", expect: { backend: "v2", upstreamHeaders: { "x-forwarded-host": "example.org" } } },
      {
        host: "rewrite.example",
        path: "/rewrite-host-and-modify-headers",
        expect: { backend: "v2", upstreamHeaders: { "x-forwarded-host": "test.example.org", "x-header-set": "set-overwrites-values" } },
      },
    ],
  },
  {
    name: "X-Forwarded-For and Forwarded come from CF-Connecting-IP, never from the client; a filter's X-Forwarded-For gets the address appended",
    routes: conformanceManifest("forwarded-headers"),
    requests: [
      {
        host: "forwarded.example",
        path: "/plain",
        headers: { "cf-connecting-ip": "203.0.113.7", "x-forwarded-for": "10.0.0.9", forwarded: "for=10.0.0.9;proto=https" },
        expect: {
          backend: "v2",
          upstreamHeaders: { "x-forwarded-for": "203.0.113.7", forwarded: "for=203.0.113.7;host=forwarded.example;proto=http" },
        },
      },
      {
        host: "forwarded.example",
        path: "/v6",
        headers: { "cf-connecting-ip": "2001:db8::7" },
        expect: {
          backend: "v2",
          upstreamHeaders: { "x-forwarded-for": "2001:db8::7", forwarded: 'for="[2001:db8::7]";host=forwarded.example;proto=http' },
        },
      },
      {
        host: "forwarded.example",
        path: "/modified",
        headers: { "cf-connecting-ip": "203.0.113.7", "x-forwarded-for": "10.0.0.9" },
        expect: { backend: "v1", upstreamHeaders: { "x-forwarded-for": "198.51.100.1, 203.0.113.7" } },
      },
      {
        host: "forwarded.example",
        path: "/none",
        headers: { "x-forwarded-for": "10.0.0.9" },
        expect: { backend: "v2", upstreamHeaders: { "x-forwarded-for": null, forwarded: "host=forwarded.example;proto=http" } },
      },
    ],
  },
  {
    name: "HTTPRouteBackendURLRewrite: a rewrite placed on the backendRef",
    routes: conformanceManifest("httproute-backend-url-rewrite"),
    requests: [
      { path: "/full/original", expect: { backend: "v1", upstreamPath: "/rewritten-full" } },
      { path: "/prefix/original", expect: { backend: "v1", upstreamPath: "/rewritten-prefix/original" } },
    ],
  },
  {
    name: "HTTPRouteInvalidNonExistentBackendRef and HTTPRouteNoBackendRefs: 500, and the rest forwards",
    routes: conformanceManifest("httproute-invalid-backendref-nonexistent"),
    requests: [
      { path: "/nonexistent", expect: { status: 500, error: "BACKEND_NOT_RESOLVED" } },
      { path: "/omitted-no-forward", expect: { status: 500, error: "NO_BACKEND" } },
      { path: "/empty-no-forward", expect: { status: 500, error: "NO_BACKEND" } },
      { path: "/forward", expect: { backend: "v1" } },
    ],
  },
  {
    name: "HTTPRouteTimeoutRequest and HTTPRouteTimeoutBackendRequest: 504 past the limit, 0s disables",
    routes: conformanceManifest("httproute-timeouts"),
    requests: [
      { path: "/request-timeout", expect: { backend: "v1" } },
      { path: "/request-timeout?delay=1s", expect: { status: 504, error: "UPSTREAM_TIMEOUT" } },
      { path: "/disable-request-timeout?delay=1s", expect: { backend: "v1" } },
      { path: "/backend-request-timeout", expect: { backend: "v1" } },
      { path: "/backend-request-timeout?delay=1s", expect: { status: 504, error: "UPSTREAM_TIMEOUT" } },
      { path: "/disable-backend-request-timeout?delay=1s", expect: { backend: "v1" } },
    ],
  },
  {
    name: "HTTPRouteRetry: listed codes are retried up to `attempts` more times; others are not",
    routes: conformanceManifest("httproute-retry"),
    requests: [
      { path: `/retry/code-500-attempts-3?status=500&succeedAfter=2&key=${RUN}-a`, expect: { backend: "v3" } },
      { path: `/retry/code-500-attempts-3?status=500&succeedAfter=4&key=${RUN}-b`, expect: { status: 500 } },
      { path: `/retry/code-500-attempts-3?status=503&succeedAfter=2&key=${RUN}-c`, expect: { status: 503 } },
      ...[500, 502, 503, 504].flatMap((code): Exchange[] => [
        { path: `/retry/code-all-attempts-2?status=${code}&succeedAfter=1&key=${RUN}-${code}-1`, expect: { backend: "v3" } },
        { path: `/retry/code-all-attempts-2?status=${code}&succeedAfter=3&key=${RUN}-${code}-3`, expect: { status: code } },
      ]),
    ],
  },
  {
    name: "HTTPRouteRetryWithTimeouts: a backendRequest timeout is retried; retries stay inside the request timeout",
    routes: conformanceManifest("httproute-retry-with-timeouts"),
    requests: [
      {
        path: `/retry/backend-request-timeout-200ms?status=500&succeedAfter=2&delayRetry=300ms&key=${RUN}-t1`,
        expect: { backend: "v3" },
      },
      {
        path: `/retry/backend-request-timeout-200ms?status=500&succeedAfter=3&delayRetry=300ms&key=${RUN}-t2`,
        expect: { status: 504, error: "UPSTREAM_TIMEOUT" },
      },
      { path: `/retry/request-timeout-200ms?status=500&succeedAfter=1&key=${RUN}-t3`, expect: { backend: "v3" } },
      {
        path: `/retry/request-timeout-200ms?status=500&succeedAfter=4&delayRetry=100ms&key=${RUN}-t4`,
        expect: { status: 504, error: "UPSTREAM_TIMEOUT" },
      },
    ],
  },
  {
    name: "HTTPRouteRetryConnectionError: connection resets are retried without codes; exhausted, 503",
    routes: conformanceManifest("httproute-retry-connection-error"),
    requests: [
      { path: `/retry/no-status-code-attempts-3?succeedAfter=2&key=${RUN}-c1`, expect: { backend: "v3" } },
      { path: `/retry/no-status-code-attempts-3?succeedAfter=4&key=${RUN}-c2`, expect: { status: 503, error: "UPSTREAM_UNREACHABLE" } },
    ],
  },
];
