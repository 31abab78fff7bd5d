/**
 * @module Request → expectation tables from the Gateway API conformance suite (semantics brief §7),
 * run against the pure matcher (node) and the real Worker (workerd) alike.
 */

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
  /** Routes (and extra Gateways) added to the conformance infra, in namespace gateway-conformance-infra. */
  routes: string;
  requests: RequestCase[];
}

const route = (name: string, spec: string, extra = "") => `
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: { name: ${name}, namespace: gateway-conformance-infra${extra} }
spec:
  parentRefs: [{ name: same-namespace }]
${spec}`;

const backend = (v: string) => `backendRefs: [{ name: infra-backend-${v}, port: 8080 }]`;

export const CONFORMANCE_CASES: ConformanceCase[] = [
  {
    name: "HTTPRouteMatching: prefix plus header beats a shorter prefix; segment boundaries hold",
    routes: route(
      "matching",
      `  rules:
    - matches: [{ path: { type: PathPrefix, value: / } }, { headers: [{ name: version, value: one }] }]
      ${backend("v1")}
    - matches: [{ path: { type: PathPrefix, value: /v2 } }, { headers: [{ name: version, value: two }] }]
      ${backend("v2")}`,
    ),
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
    routes: route(
      "path-matching-order",
      `  rules:
    - matches: [{ path: { type: Exact, value: /match } }]
      ${backend("v1")}
    - matches: [{ path: { type: Exact, value: /match/exact } }]
      ${backend("v2")}
    - matches: [{ path: { type: Exact, value: /match/exact/one } }]
      ${backend("v3")}
    - matches: [{ path: { type: PathPrefix, value: /match/ } }]
      ${backend("v3")}
    - matches: [{ path: { type: PathPrefix, value: /match/prefix/ } }]
      ${backend("v1")}
    - matches: [{ path: { type: PathPrefix, value: /match/prefix/one } }]
      ${backend("v2")}`,
    ),
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
    routes: route(
      "exact-matching",
      `  rules:
    - matches: [{ path: { type: Exact, value: /one } }]
      ${backend("v1")}
    - matches: [{ path: { type: Exact, value: /two } }]
      ${backend("v2")}`,
    ),
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
    routes: route(
      "header-matching",
      `  rules:
    - matches: [{ headers: [{ name: version, value: one }] }]
      ${backend("v1")}
    - matches: [{ headers: [{ name: version, value: two }] }]
      ${backend("v2")}
    - matches: [{ headers: [{ name: version, value: two }, { name: color, value: orange }] }]
      ${backend("v1")}
    - matches: [{ headers: [{ name: color, value: blue }] }, { headers: [{ name: color, value: green }] }]
      ${backend("v1")}
    - matches: [{ headers: [{ name: color, value: red }] }, { headers: [{ name: color, value: yellow }] }]
      ${backend("v2")}`,
    ),
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
    routes: route(
      "query-param-matching",
      `  rules:
    - matches: [{ queryParams: [{ name: animal, value: whale }] }]
      ${backend("v1")}
    - matches: [{ queryParams: [{ name: animal, value: dolphin }] }]
      ${backend("v2")}
    - matches: [{ queryParams: [{ name: animal, value: dolphin }, { name: color, value: blue }] }, { queryParams: [{ name: ANIMAL, value: Whale }] }]
      ${backend("v3")}
    - matches: [{ path: { type: PathPrefix, value: /path1 }, queryParams: [{ name: animal, value: whale }] }]
      ${backend("v1")}
    - matches: [{ headers: [{ name: version, value: one }], queryParams: [{ name: animal, value: whale }] }]
      ${backend("v2")}
    - matches: [{ path: { type: PathPrefix, value: /path2 }, headers: [{ name: version, value: two }], queryParams: [{ name: animal, value: whale }] }]
      ${backend("v3")}
    - matches:
        - { path: { type: PathPrefix, value: /path3 }, queryParams: [{ name: animal, value: shark }] }
        - { path: { type: PathPrefix, value: /path4 }, headers: [{ name: version, value: three }], queryParams: [{ name: animal, value: kraken }] }
      ${backend("v1")}
    - matches: [{ path: { type: PathPrefix, value: /path5 } }]
      ${backend("v1")}
    - matches: [{ queryParams: [{ name: animal, value: hydra }] }]
      ${backend("v2")}
    - matches: [{ headers: [{ name: version, value: four }] }]
      ${backend("v3")}`,
    ),
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
    routes: route(
      "method-matching",
      `  rules:
    - matches: [{ method: POST }]
      ${backend("v1")}
    - matches: [{ method: GET }]
      ${backend("v2")}
    - matches: [{ path: { type: PathPrefix, value: /path1 }, method: GET }]
      ${backend("v1")}
    - matches: [{ headers: [{ name: version, value: one }], method: PUT }]
      ${backend("v2")}
    - matches: [{ path: { type: PathPrefix, value: /path2 }, headers: [{ name: version, value: two }], method: POST }]
      ${backend("v3")}
    - matches:
        - { path: { type: PathPrefix, value: /path3 }, method: PATCH }
        - { path: { type: PathPrefix, value: /path4 }, headers: [{ name: version, value: three }], method: DELETE }
      ${backend("v1")}
    - matches: [{ path: { type: PathPrefix, value: /path5 } }]
      ${backend("v1")}
    - matches: [{ method: PATCH }]
      ${backend("v2")}
    - matches: [{ headers: [{ name: version, value: four }] }]
      ${backend("v3")}`,
    ),
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
    routes:
      route(
        "part1",
        `  hostnames: [example.com, example.net]
  rules:
    - matches: [{ path: { type: PathPrefix, value: / } }, { headers: [{ name: version, value: one }] }]
      ${backend("v1")}`,
      ) +
      "\n---\n" +
      route(
        "part2",
        `  hostnames: [example.com]
  rules:
    - matches: [{ path: { type: PathPrefix, value: /v2 } }, { headers: [{ name: version, value: two }] }]
      ${backend("v2")}`,
      ),
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
    routes: `
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: { name: httproute-hostname-intersection, namespace: gateway-conformance-infra }
spec:
  gatewayClassName: kedge
  listeners:
    - { name: listener-1, protocol: HTTP, port: 80, hostname: very.specific.com }
    - { name: listener-2, protocol: HTTP, port: 80, hostname: "*.wildcard.io" }
    - { name: listener-3, protocol: HTTP, port: 80, hostname: "*.anotherwildcard.io" }
---
${[
  "A|non.matching.com, '*.nonmatchingwildcard.io', very.specific.com|/s1|v1",
  "B|non.matching.com, wildcard.io, foo.wildcard.io, bar.wildcard.io, foo.bar.wildcard.io|/s2|v2",
  "C|non.matching.com, '*.specific.com'|/s3|v3",
  "D|'*.anotherwildcard.io'|/s4|v1",
  "E|specific.but.wrong.com, wildcard.io|/s5|v2",
]
  .map((row) => {
    const [name, hosts, prefix, v] = row.split("|");
    return `apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: { name: route-${name}, namespace: gateway-conformance-infra }
spec:
  parentRefs: [{ name: httproute-hostname-intersection }]
  hostnames: [${hosts}]
  rules:
    - matches: [{ path: { type: PathPrefix, value: ${prefix} } }]
      ${backend(v ?? "v1")}
`;
  })
  .join("---\n")}`,
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
    routes: `
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: { name: httproute-listener-hostname-matching, namespace: gateway-conformance-infra }
spec:
  gatewayClassName: kedge
  listeners:
    - { name: listener-1, protocol: HTTP, port: 80, hostname: bar.com }
    - { name: listener-2, protocol: HTTP, port: 80, hostname: foo.bar.com }
    - { name: listener-3, protocol: HTTP, port: 80, hostname: "*.bar.com" }
    - { name: listener-4, protocol: HTTP, port: 80, hostname: "*.foo.com" }
---
${[
  ["1", "listener-1", "v1"],
  ["2", "listener-2", "v2"],
  ["3", "listener-3", "v3"],
  ["3b", "listener-4", "v3"],
]
  .map(
    ([n, section, v]) => `apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: { name: backend-v${n}, namespace: gateway-conformance-infra }
spec:
  parentRefs: [{ name: httproute-listener-hostname-matching, sectionName: ${section} }]
  rules:
    - ${backend(v ?? "v1")}
`,
  )
  .join("---\n")}`,
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
    routes: `
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: { name: httproute-listener-port-matching, namespace: gateway-conformance-infra }
spec:
  gatewayClassName: kedge
  listeners:
    - { name: listener-1, protocol: HTTP, port: 80, hostname: foo.com }
    - { name: listener-2, protocol: HTTP, port: 8080, hostname: foo.com }
    - { name: listener-3, protocol: HTTP, port: 8080, hostname: bar.com }
    - { name: listener-4, protocol: HTTP, port: 8090, hostname: foo.com }
    - { name: listener-5, protocol: HTTP, port: 8090, hostname: bar.com }
---
${[
  ["v1", "port: 80"],
  ["v2", "port: 8080"],
  ["v3", "port: 8090, sectionName: listener-4"],
]
  .map(
    ([v, parent]) => `apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: { name: backend-${v}, namespace: gateway-conformance-infra }
spec:
  parentRefs: [{ name: httproute-listener-port-matching, ${parent} }]
  rules:
    - ${backend(v ?? "v1")}
`,
  )
  .join("---\n")}`,
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
    routes: `
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: { name: all-namespaces, namespace: gateway-conformance-infra }
spec:
  gatewayClassName: kedge
  addresses: [{ type: Hostname, value: all-namespaces.gateway.example }]
  listeners: [{ name: http, protocol: HTTP, port: 80, allowedRoutes: { namespaces: { from: All } } }]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: { name: multiple-gateways-shared-route, namespace: gateway-conformance-infra }
spec:
  parentRefs: [{ name: same-namespace }, { name: all-namespaces }]
  rules:
    - matches: [{ path: { type: PathPrefix, value: /shared } }]
      ${backend("v1")}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: { name: same-namespace-dedicated-route, namespace: gateway-conformance-infra }
spec:
  parentRefs: [{ name: same-namespace }]
  rules:
    - ${backend("v2")}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: { name: all-namespaces-dedicated-route, namespace: gateway-conformance-infra }
spec:
  parentRefs: [{ name: all-namespaces }]
  rules:
    - ${backend("v3")}
`,
    requests: [
      { host: "example.org", path: "/shared", expect: { backend: "v1" } },
      { host: "example.org", path: "/", expect: { backend: "v2" } },
      { host: "all-namespaces.gateway.example", path: "/shared", expect: { backend: "v1" } },
      { host: "all-namespaces.gateway.example", path: "/", expect: { backend: "v3" } },
      { host: "all-namespaces.gateway.example", path: "/other", expect: { backend: "v3" } },
    ],
  },
];
