/**
 * The schema stage: typos and wrong values are errors naming the field path and file:line:col, the object
 * is not served and the rest is; kedge.yaml reports all its problems at once.
 */
import { describe, it } from "vitest";
import { parse } from "yaml";
import { EdgeConfigError, parseEdgeConfig } from "../../src/compile/input/edge-config";
import { fileLocator } from "../../src/gateway-api/locate";
import { compileYaml } from "../support/compile-fixture";
import { edgeConfig, service, yamlDocs } from "../support/manifests";

const GATEWAY = `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: { name: gw, namespace: app }
spec:
  gatewayClassName: kedge
  listeners: [{ name: http, protocol: HTTP, port: 80 }]
`;

const route = (name: string, rule: string) => `apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: { name: ${name}, namespace: app }
spec:
  parentRefs: [{ name: gw }]
  rules:
${rule}`;

describe("schema stage: Gateway API objects (the pinned release's schema)", () => {
  it("a typo'd field is an unknown field with the field path and file:line:col; the route is not served, the others are", async ({
    expect,
  }) => {
    const text = yamlDocs(
      GATEWAY,
      service("web", "app"),
      route(
        "typo",
        `    - matches:
        - path: { type: PathPrefix, vaule: /admin }
      backendRefs: [{ name: web, port: 8080, weigth: 5 }]
`,
      ),
      route("good", "    - backendRefs: [{ name: web, port: 8080 }]\n"),
    );
    const { table, diagnostics, statuses } = await compileYaml(edgeConfig("t"), { c1: text });
    expect(table.rules.map((r) => r.id)).toEqual(["c1/app/good/rule/0"]);
    const errors = diagnostics.filter((d) => d.severity === "error");
    expect(errors.map((d) => [d.field, d.reason, d.message, d.position])).toEqual([
      [
        "spec.rules[0].matches[0].path.vaule",
        "UnknownField",
        'unknown field "spec.rules[0].matches[0].path.vaule" (did you mean value?); the route is not served',
        { line: 20, col: 37 },
      ],
      [
        "spec.rules[0].backendRefs[0].weigth",
        "UnknownField",
        'unknown field "spec.rules[0].backendRefs[0].weigth" (did you mean weight?); the route is not served',
        { line: 21, col: 46 },
      ],
    ]);
    const typo = statuses.find((s) => s.object.name === "typo");
    expect(typo?.parents?.[0]?.conditions[0]).toMatchObject({
      type: "Accepted",
      status: "False",
      reason: "UnsupportedValue",
      message: "invalid object: spec.rules[0].matches[0].path.vaule: unknown field (did you mean value?) (and 1 more)",
    });
  });

  it("wrong types and values out of range are errors with what the value must be", async ({ expect }) => {
    const text = yamlDocs(
      GATEWAY,
      route(
        "bad",
        `    - backendRefs: [{ name: web, port: 99999, weight: "heavy" }]
      timeouts: { request: 10sec }
`,
      ),
    );
    const { diagnostics } = await compileYaml(edgeConfig("t"), { c1: text });
    expect(diagnostics.filter((d) => d.severity === "error").map((d) => `${d.field}: ${d.message}`)).toEqual([
      "spec.rules[0].backendRefs[0].port: must be <= 65535; the route is not served",
      "spec.rules[0].backendRefs[0].weight: must be an integer; the route is not served",
      "spec.rules[0].timeouts.request: must be a duration like 500ms, 10s or 1m30s (GEP-2257); the route is not served",
    ]);
  });

  it("reads the newer sessionPersistence shape (cookie, header) as well as the release's", async ({ expect }) => {
    const text = yamlDocs(
      GATEWAY,
      service("web", "app"),
      route(
        "sticky",
        `    - sessionPersistence: { type: Cookie, cookie: { name: cart, path: /shop } }
      backendRefs: [{ name: web, port: 8080 }]
`,
      ),
    );
    const { table, diagnostics } = await compileYaml(edgeConfig("t"), { c1: text });
    expect(diagnostics.filter((d) => d.severity === "error")).toEqual([]);
    expect(table.rules[0]?.session).toMatchObject({ name: "cart", path: "/shop" });
  });

  it("an API version the release does not have is named with those it has", async ({ expect }) => {
    const text = yamlDocs(
      GATEWAY,
      route("old", "    - backendRefs: [{ name: web, port: 8080 }]\n").replace(
        "gateway.networking.k8s.io/v1\nkind: HTTPRoute",
        "gateway.networking.k8s.io/v1alpha1\nkind: HTTPRoute",
      ),
    );
    const { diagnostics } = await compileYaml(edgeConfig("t"), { c1: text });
    expect(diagnostics).toContainEqual(
      expect.objectContaining({
        severity: "error",
        field: "apiVersion",
        message: expect.stringContaining(
          "has no HTTPRoute at gateway.networking.k8s.io/v1alpha1 (it has gateway.networking.k8s.io/v1, gateway.networking.k8s.io/v1beta1)",
        ),
      }),
    );
  });
});

describe("schema stage: kedge's own kinds", () => {
  it("checks XBackend and CompositeBackend fields, and the core fields kedge reads, leaving the rest of a Service open", async ({
    expect,
  }) => {
    const text = yamlDocs(
      `apiVersion: gateway.networking.x-k8s.io/v1alpha1
kind: XBackend
metadata: { name: partner, namespace: app }
spec: { type: ExternalHostname, externalHostname: { hostname: api.partner.example }, port: { port: 443 }, tls: { mode: ServerOnly, verify: true } }
`,
      `apiVersion: gateway.networking.k8s.io/v1
kind: CompositeBackend
metadata: { name: agg, namespace: app }
spec: { targetRef: [{ kind: Service, name: web }] }
`,
      `apiVersion: v1
kind: Service
metadata: { name: web, namespace: app }
spec: { clusterIP: 10.0.0.1, sessionAffinity: None, ports: [{ name: http, port: http }] }
`,
    );
    const { diagnostics } = await compileYaml(edgeConfig("t"), { c1: text });
    expect(diagnostics.filter((d) => d.severity === "error").map((d) => `${d.object.kind} ${d.field}: ${d.reason}`)).toEqual([
      "XBackend spec.tls.verify: UnknownField",
      "CompositeBackend spec.targetRefs: UnsupportedValue",
      "CompositeBackend spec.targetRef: UnknownField",
      "Service spec.ports[0].port: UnsupportedValue",
    ]);
  });
});

describe("kedge.yaml", () => {
  it("reports every problem at once, each with its line and column", ({ expect }) => {
    const text = `apiVersion: kedge.dev/v1alpha1
kind: EdgeConfig
metadata: { name: demo }
spec:
  gatewayClassName: kedge
  healthcheck: { path: /healthz }
  clusters:
    - name: east
      weigth: 2
    - name: west
      weight: -1
`;
    let message = "";
    try {
      parseEdgeConfig(parse(text), "kedge.yaml", fileLocator(text)(0));
    } catch (error) {
      expect(error).toBeInstanceOf(EdgeConfigError);
      message = (error as Error).message;
    }
    expect(message.split("\n")).toEqual([
      "kedge.yaml: 3 problems:",
      "  kedge.yaml:6:3: spec.healthcheck: unknown field (did you mean healthChecks?)",
      "  kedge.yaml:9:7: spec.clusters[0].weigth: unknown field (did you mean weight?)",
      "  kedge.yaml:11:7: spec.clusters[1].weight: must be 0–1000000 (got -1)",
    ]);
  });
});
