/**
 * @module Request → expectation tables from the Gateway API conformance suite (semantics brief §7),
 * run against the pure matcher (node) and the real Worker (workerd) alike.
 */
import { conformanceManifest } from "../support/conformance-infra";

export interface RequestCase {
  host?: string;
  path: string;
  method?: string;
  headers?: Record<string, string>;
  /** The backend (Service name suffix v1/v2/v3) expected to answer, or the status expected. */
  expect: { backend: "v1" | "v2" | "v3" } | { status: number };
}

/** What the matcher sees of a table's request: an HTTP request to its host (port from the host, else 80). */
export function requestFacts(req: RequestCase) {
  const url = new URL(req.path, `http://${req.host ?? "example.org"}`);
  return {
    url,
    facts: {
      protocol: "HTTP" as const,
      host: url.hostname,
      port: url.port ? Number(url.port) : 80,
      path: url.pathname,
      method: req.method ?? "GET",
      headers: new Headers(req.headers),
      query: url.searchParams,
    },
  };
}

export interface ConformanceCase {
  name: string;
  /** The case's manifests (test/fixtures/compile/conformance/<name>.in.yaml), added to the conformance base. */
  routes: string;
  requests: RequestCase[];
}

export const CONFORMANCE_CASES: ConformanceCase[] = [
  {
    name: "HTTPRouteMatching: prefix plus header beats a shorter prefix; segment boundaries hold",
    routes: conformanceManifest("httproute-matching"),
    requests: [
      { path: "/", expect: { backend: "v1" } },
      { path: "/example", expect: { backend: "v1" } },
      { path: "/", headers: { version: "one" }, expect: { backend: "v1" } },
      { path: "/v2", expect: { backend: "v2" } },
      { path: "/v2/example", expect: { backend: "v2" } },
      { path: "/v2/", expect: { backend: "v2" } },
      { path: "/", headers: { version: "two" }, expect: { backend: "v2" } },
      { path: "/v2example", expect: { backend: "v1" } },
      { path: "/foo/v2/example", expect: { backend: "v1" } },
    ],
  },
  {
    name: "HTTPRoutePathMatchOrder: Exact first, then the longest prefix",
    routes: conformanceManifest("httproute-path-match-order"),
    requests: [
      { path: "/match/exact/one", expect: { backend: "v3" } },
      { path: "/match/exact", expect: { backend: "v2" } },
      { path: "/match", expect: { backend: "v1" } },
      { path: "/match/prefix/one/any", expect: { backend: "v2" } },
      { path: "/match/prefix/any", expect: { backend: "v1" } },
      { path: "/match/any", expect: { backend: "v3" } },
    ],
  },
  {
    name: "HTTPRouteExactPathMatching: whole-path, case-sensitive equality",
    routes: conformanceManifest("httproute-exact-path-matching"),
    requests: [
      { path: "/one", expect: { backend: "v1" } },
      { path: "/two", expect: { backend: "v2" } },
      { path: "/", expect: { status: 404 } },
      { path: "/one/example", expect: { status: 404 } },
      { path: "/two/", expect: { status: 404 } },
      { path: "/Two", expect: { status: 404 } },
    ],
  },
  {
    name: "HTTPRouteHeaderMatching: more headers win; ties go to the first rule",
    routes: conformanceManifest("httproute-header-matching"),
    requests: [
      { path: "/", headers: { Version: "one" }, expect: { backend: "v1" } },
      { path: "/", headers: { Version: "two" }, expect: { backend: "v2" } },
      { path: "/", headers: { Version: "two", Color: "orange" }, expect: { backend: "v1" } },
      { path: "/", headers: { Version: "two", Color: "blue" }, expect: { backend: "v2" } },
      { path: "/", headers: { Color: "blue" }, expect: { backend: "v1" } },
      { path: "/", headers: { Color: "green" }, expect: { backend: "v1" } },
      { path: "/", headers: { Color: "red" }, expect: { backend: "v2" } },
      { path: "/", headers: { Color: "yellow" }, expect: { backend: "v2" } },
      { path: "/", headers: { Color: "orange" }, expect: { status: 404 } },
      { path: "/", headers: { Color: "purple" }, expect: { status: 404 } },
      { path: "/", headers: { "Some-Other-Header": "one" }, expect: { status: 404 } },
    ],
  },
  {
    name: "HTTPRouteQueryParamMatching: names are case-sensitive; prefix beats query, header beats query",
    routes: conformanceManifest("httproute-query-param-matching"),
    requests: [
      { path: "/?animal=whale", expect: { backend: "v1" } },
      { path: "/?animal=dolphin", expect: { backend: "v2" } },
      { path: "/?animal=dolphin&color=blue", expect: { backend: "v3" } },
      { path: "/?ANIMAL=Whale", expect: { backend: "v3" } },
      { path: "/?animal=whale&otherparam=irrelevant", expect: { backend: "v1" } },
      { path: "/?animal=dolphin&color=yellow", expect: { backend: "v2" } },
      { path: "/?color=blue", expect: { status: 404 } },
      { path: "/?animal=dog", expect: { status: 404 } },
      { path: "/?animal=whaledolphin", expect: { status: 404 } },
      { path: "/", expect: { status: 404 } },
      { path: "/path1?animal=whale", expect: { backend: "v1" } },
      { path: "/?animal=whale", headers: { version: "one" }, expect: { backend: "v2" } },
      { path: "/path2?animal=whale", headers: { version: "two" }, expect: { backend: "v3" } },
      { path: "/path3?animal=shark", expect: { backend: "v1" } },
      { path: "/path4?animal=kraken", headers: { version: "three" }, expect: { backend: "v1" } },
      { path: "/?animal=shark", expect: { status: 404 } },
      { path: "/path4?animal=kraken", expect: { status: 404 } },
      { path: "/path5?animal=hydra", expect: { backend: "v1" } },
      { path: "/?animal=hydra", headers: { version: "four" }, expect: { backend: "v3" } },
    ],
  },
  {
    name: "HTTPRouteMethodMatching: prefix beats method, method beats header",
    routes: conformanceManifest("httproute-method-matching"),
    requests: [
      { method: "POST", path: "/", expect: { backend: "v1" } },
      { method: "GET", path: "/", expect: { backend: "v2" } },
      { method: "HEAD", path: "/", expect: { status: 404 } },
      { method: "GET", path: "/path1", expect: { backend: "v1" } },
      { method: "PUT", path: "/", headers: { version: "one" }, expect: { backend: "v2" } },
      { method: "POST", path: "/path2", headers: { version: "two" }, expect: { backend: "v3" } },
      { method: "PATCH", path: "/path3", expect: { backend: "v1" } },
      { method: "DELETE", path: "/path4", headers: { version: "three" }, expect: { backend: "v1" } },
      { method: "PUT", path: "/", expect: { status: 404 } },
      { method: "DELETE", path: "/path4", expect: { status: 404 } },
      { method: "PATCH", path: "/path5", expect: { backend: "v1" } },
      { method: "PATCH", path: "/", headers: { version: "four" }, expect: { backend: "v2" } },
    ],
  },
  {
    name: "HTTPRouteMatchingAcrossRoutes: precedence spans routes on the same host",
    routes: conformanceManifest("httproute-matching-across-routes"),
    requests: [
      { host: "example.com", path: "/", expect: { backend: "v1" } },
      { host: "example.com", path: "/example", expect: { backend: "v1" } },
      { host: "example.net", path: "/example", expect: { backend: "v1" } },
      { host: "example.com", path: "/example", headers: { Version: "one" }, expect: { backend: "v1" } },
      { host: "example.com", path: "/v2", expect: { backend: "v2" } },
      { host: "example.net", path: "/v2", expect: { backend: "v1" } },
      { host: "example.com", path: "/v2/example", expect: { backend: "v2" } },
      { host: "example.com", path: "/", headers: { Version: "two" }, expect: { backend: "v2" } },
    ],
  },
  {
    name: "HTTPRouteHostnameIntersection: listener × route hostnames, wildcards both ways",
    routes: conformanceManifest("httproute-hostname-intersection"),
    requests: [
      { host: "very.specific.com", path: "/s1", expect: { backend: "v1" } },
      { host: "very.specific.com:1234", path: "/s1", expect: { backend: "v1" } },
      { host: "non.matching.com", path: "/s1", expect: { status: 404 } },
      { host: "foo.nonmatchingwildcard.io", path: "/s1", expect: { status: 404 } },
      { host: "foo.wildcard.io", path: "/s1", expect: { status: 404 } },
      { host: "very.specific.com", path: "/non-matching-prefix", expect: { status: 404 } },
      { host: "foo.wildcard.io", path: "/s2", expect: { backend: "v2" } },
      { host: "bar.wildcard.io", path: "/s2", expect: { backend: "v2" } },
      { host: "foo.bar.wildcard.io", path: "/s2", expect: { backend: "v2" } },
      { host: "non.matching.com", path: "/s2", expect: { status: 404 } },
      { host: "wildcard.io", path: "/s2", expect: { status: 404 } },
      { host: "very.specific.com", path: "/s2", expect: { status: 404 } },
      { host: "very.specific.com", path: "/s3", expect: { backend: "v3" } },
      { host: "foo.specific.com", path: "/s3", expect: { status: 404 } },
      { host: "non.matching.com", path: "/s3", expect: { status: 404 } },
      { host: "foo.wildcard.io", path: "/s3", expect: { status: 404 } },
      { host: "foo.anotherwildcard.io", path: "/s4", expect: { backend: "v1" } },
      { host: "bar.anotherwildcard.io", path: "/s4", expect: { backend: "v1" } },
      { host: "foo.bar.anotherwildcard.io", path: "/s4", expect: { backend: "v1" } },
      { host: "anotherwildcard.io", path: "/s4", expect: { status: 404 } },
      { host: "foo.wildcard.io", path: "/s4", expect: { status: 404 } },
      { host: "very.specific.com", path: "/s4", expect: { status: 404 } },
      { host: "specific.but.wrong.com", path: "/s5", expect: { status: 404 } },
      { host: "wildcard.io", path: "/s5", expect: { status: 404 } },
    ],
  },
  {
    name: "HTTPRouteListenerHostnameMatching: exact listeners before wildcards",
    routes: conformanceManifest("httproute-listener-hostname-matching"),
    requests: [
      { host: "bar.com", path: "/", expect: { backend: "v1" } },
      { host: "foo.bar.com", path: "/", expect: { backend: "v2" } },
      { host: "baz.bar.com", path: "/", expect: { backend: "v3" } },
      { host: "boo.bar.com", path: "/", expect: { backend: "v3" } },
      { host: "multiple.prefixes.bar.com", path: "/", expect: { backend: "v3" } },
      { host: "multiple.prefixes.foo.com", path: "/", expect: { backend: "v3" } },
      { host: "foo.com", path: "/", expect: { status: 404 } },
      { host: "no.matching.host", path: "/", expect: { status: 404 } },
    ],
  },
  {
    name: "HTTPRouteListenerPortMatching: the port a request came to selects listeners as its host does",
    routes: conformanceManifest("httproute-listener-port-matching"),
    requests: [
      { host: "foo.com", path: "/", expect: { backend: "v1" } },
      { host: "foo.com:80", path: "/", expect: { backend: "v1" } },
      { host: "foo.com:8080", path: "/", expect: { backend: "v2" } },
      { host: "bar.com:8080", path: "/", expect: { backend: "v2" } },
      { host: "foo.com:8090", path: "/", expect: { backend: "v3" } },
      { host: "bar.com:8090", path: "/", expect: { status: 404 } },
      { host: "bar.com", path: "/", expect: { status: 404 } },
      { host: "bar.com:80", path: "/", expect: { status: 404 } },
    ],
  },
  {
    name: "HTTPRouteMultipleGateways: a Gateway's Hostname address keeps its requests apart from another Gateway's",
    routes: conformanceManifest("httproute-multiple-gateways"),
    requests: [
      { host: "example.org", path: "/shared", expect: { backend: "v1" } },
      { host: "example.org", path: "/", expect: { backend: "v2" } },
      { host: "all-namespaces.gateway.example", path: "/shared", expect: { backend: "v1" } },
      { host: "all-namespaces.gateway.example", path: "/", expect: { backend: "v3" } },
      { host: "all-namespaces.gateway.example", path: "/other", expect: { backend: "v3" } },
    ],
  },
];
