/**
 * What the sync prints for routes it must reject (invalid filter combinations, unsafe values), and
 * that everything else it was given still serves.
 */
import { afterAll, beforeAll, describe, it } from "vitest";
import type { LocalGateway } from "../../scripts/dev/local-gateway";
import type { Origin } from "../../scripts/dev/origin-server";
import { endpointSlice, gatewayAndRoute, service, yamlDocs } from "../support/manifests";
import { type CliRun, startGateway, startOrigins, tearDown, Workspace } from "./harness";

const EDGE = `apiVersion: kedge.dev/v1alpha1
kind: EdgeConfig
metadata: { name: validation }
spec: { gatewayClassName: kedge, clusters: [{ name: c1 }] }
`;

/** One rejected route per entry: its rule (YAML), the field and reason the sync must name. */
const REJECTED: Record<string, { rule: string; field: string; reason: string; message: RegExp }> = {
  "redirect-with-backends": {
    rule: "{ matches: [{ path: { value: /r1 } }], filters: [{ type: RequestRedirect, requestRedirect: { scheme: https } }], backendRefs: [{ name: web, port: 8080 }] }",
    field: "spec.rules[0].filters",
    reason: "UnsupportedValue",
    message: /RequestRedirect cannot be combined with backendRefs/,
  },
  "redirect-with-rewrite": {
    rule: "{ matches: [{ path: { value: /r2 } }], filters: [{ type: RequestRedirect, requestRedirect: { scheme: https } }, { type: URLRewrite, urlRewrite: { hostname: a.example } }] }",
    field: "spec.rules[0].filters",
    reason: "UnsupportedValue",
    message: /RequestRedirect and URLRewrite cannot be combined/,
  },
  "prefix-rewrite-without-one-prefix": {
    rule: "{ matches: [{ path: { type: Exact, value: /r3 } }], filters: [{ type: URLRewrite, urlRewrite: { path: { type: ReplacePrefixMatch, replacePrefixMatch: /x } } }], backendRefs: [{ name: web, port: 8080 }] }",
    field: "spec.rules[0].filters[0].urlRewrite.path.type",
    reason: "UnsupportedValue",
    message: /ReplacePrefixMatch needs exactly one match, and it must be a PathPrefix/,
  },
  "bad-path": {
    rule: "{ matches: [{ path: { value: /r4/../etc } }], backendRefs: [{ name: web, port: 8080 }] }",
    field: "spec.rules[0].matches[0].path.value",
    reason: "UnsupportedValue",
    message: /path/,
  },
  "header-value-crlf": {
    rule: '{ matches: [{ path: { value: /r5 } }], filters: [{ type: RequestHeaderModifier, requestHeaderModifier: { set: [{ name: X-A, value: "a\\r\\nInjected: 1" }] } }], backendRefs: [{ name: web, port: 8080 }] }',
    field: "spec.rules[0].filters[0].requestHeaderModifier.set[0].value",
    reason: "UnsupportedValue",
    message: /value/,
  },
  "header-name-invalid": {
    rule: '{ matches: [{ path: { value: /r6 }, headers: [{ name: "bad name", value: x }] }], backendRefs: [{ name: web, port: 8080 }] }',
    field: "spec.rules[0].matches[0].headers[0].name",
    reason: "UnsupportedValue",
    message: /name/,
  },
  "bad-duration": {
    rule: "{ matches: [{ path: { value: /r7 } }], timeouts: { request: 1.5s }, backendRefs: [{ name: web, port: 8080 }] }",
    field: "spec.rules[0].timeouts.request",
    reason: "UnsupportedValue",
    message: /must be a duration like 500ms/,
  },
  "lookaround-regex": {
    rule: '{ matches: [{ path: { type: RegularExpression, value: "/r8/(?=a)a+" } }], backendRefs: [{ name: web, port: 8080 }] }',
    field: "spec.rules[0].matches[0].path.value",
    reason: "UnsupportedValue",
    message: /is not RE2 syntax/,
  },
};

/**
 * Valid rules beside invalid ones: the invalid rules are dropped and the valid ones serve. The rule with
 * an unsafe regex matches nothing; the rule with a bad filter keeps its match and answers 500, so its
 * requests never reach the route's catch-all rule without the filter.
 */
const PARTLY_INVALID = `apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: { name: partly, namespace: shop }
spec:
  parentRefs: [{ name: gw }]
  rules:
    - { matches: [{ path: { value: /partly/ok } }], backendRefs: [{ name: web, port: 8080 }] }
    - { matches: [{ path: { type: RegularExpression, value: "/partly/bad/(?!x)a+" } }], backendRefs: [{ name: web, port: 8080 }] }
    - matches: [{ path: { value: /partly/guarded } }]
      filters: [{ type: RequestHeaderModifier, requestHeaderModifier: { set: [{ name: X-A, value: "a\\r\\nInjected: 1" }] } }]
      backendRefs: [{ name: web, port: 8080 }]
    - { matches: [{ path: { value: /partly } }], backendRefs: [{ name: web, port: 8080 }] }
`;

const rejectedRoute = (name: string, rule: string) => `apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: { name: ${name}, namespace: shop }
spec:
  parentRefs: [{ name: gw }]
  rules: [${rule}]
`;

describe("validation: rejected routes are reported; the rest serves", () => {
  const ws = new Workspace();
  let origins: Record<string, Origin>;
  let gateway: LocalGateway;
  let run: CliRun;
  /** The same sync without --allow-invalid. */
  let refused: CliRun;

  beforeAll(async () => {
    origins = await startOrigins(["web"]);
    ws.write({
      "kedge.yaml": EDGE,
      "clusters/c1/app.yaml": yamlDocs(
        gatewayAndRoute({
          namespace: "shop",
          route: "ok",
          rules: "    - matches: [{ path: { value: /ok } }]\n      backendRefs: [{ name: web, port: 8080 }]",
        }),
        service("web", "shop"),
        endpointSlice({ service: "web", name: "web-1", namespace: "shop", port: origins.web!.port }),
        ...Object.entries(REJECTED).map(([name, r]) => rejectedRoute(name, r.rule)),
        PARTLY_INVALID,
      ),
    });
    refused = await ws.sync();
    run = await ws.sync("--allow-invalid");
    gateway = await startGateway(ws.state, "validation");
  });

  afterAll(() => tearDown({ gateway, origins, ws }));

  it("objects that fail their schema refuse the push (exit 1, nothing written) unless --allow-invalid", async ({ expect }) => {
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      /\d+ objects above fail their schema, as the API server would have refused them; nothing written \(fix them, or pass --allow-invalid to push the rest\)/,
    );
    expect(refused.stdout).not.toContain("wrote table");
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("wrote table validation@");
  });

  it("the sync names each rejected route's field, reason and file", async ({ expect }) => {
    for (const [name, r] of Object.entries(REJECTED)) {
      const line = run.stdout.split("\n").find((l) => l.includes(`✗ HTTPRoute shop/${name} `));
      expect(line, name).toBeDefined();
      expect(line, name).toContain(`${r.field}: ${r.reason}: `);
      expect(line, name).toMatch(r.message);
      expect(line, name).toMatch(/the route is not served \(.*clusters\/c1\/app\.yaml:\d+:\d+\)/);
      expect(run.stdout, name).toMatch(new RegExp(`parent shop/gw: Accepted=False ${r.reason}`));
    }
    // Every rejected route, and the two dropped rules of the partly valid one.
    expect(run.stdout).toMatch(new RegExp(`\n${Object.keys(REJECTED).length + 2} errors, 0 warnings`));
  });

  it("a route with invalid rules keeps its valid ones; a dropped rule's valid matches answer 500", async ({ expect }) => {
    expect(run.stdout).toMatch(/parent shop\/gw: Accepted=True {2}ResolvedRefs=True {2}PartiallyInvalid=True UnsupportedValue/);
    const lines = run.stdout.split("\n").filter((l) => l.includes("✗ HTTPRoute shop/partly "));
    expect(lines[0]).toMatch(
      /spec\.rules\[1\]\.matches\[0\]\.path\.value: UnsupportedValue: .*this rule is dropped \(its matches are not served\)/,
    );
    expect(lines[1]).toMatch(
      /spec\.rules\[2\]\.filters\[0\]\.requestHeaderModifier\.set\[0\]\.value: UnsupportedValue: .*this rule is dropped \(its requests answer 500\)/,
    );
    const answers = async (path: string) => {
      const response = await gateway.miniflare.dispatchFetch(`http://shop.example.com${path}`);
      return { status: response.status, body: (await response.json()) as { error?: string; endpoint?: string } };
    };
    expect(await answers("/partly/ok")).toMatchObject({ status: 200, body: { endpoint: "web" } });
    // The regex rule matches nothing: its path goes to the route's catch-all.
    expect(await answers("/partly/bad/aaa")).toMatchObject({ status: 200, body: { endpoint: "web" } });
    // The bad filter's rule refuses its requests rather than let the catch-all serve them without the filter.
    expect(await answers("/partly/guarded/x")).toMatchObject({ status: 500, body: { error: "INVALID_RULE" } });
  });

  it("the valid route serves and the rejected ones are not served", async ({ expect }) => {
    const ok = await gateway.miniflare.dispatchFetch("http://shop.example.com/ok");
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { endpoint: string }).endpoint).toBe("web");
    for (const path of ["/r1", "/r2", "/r3", "/r5", "/r7", "/r8/aaa"]) {
      const response = await gateway.miniflare.dispatchFetch(`http://shop.example.com${path}`);
      expect(response.status, path).toBe(404);
      await response.arrayBuffer();
    }
  });
});
