/**
 * Another implementation's policy attached (GEP-713) to an object this edge serves is not enforced at the
 * edge: an error that --strict refuses, or a warning when kedge.yaml acknowledges it.
 */
import { describe, it } from "vitest";
import { compileYaml } from "../support/compile-fixture";
import { edgeConfig, gatewayAndRoute, service, yamlDocs } from "../support/manifests";

const APP = yamlDocs(
  gatewayAndRoute({ namespace: "shop", rules: "    - backendRefs: [{ name: web, port: 8080 }]" }),
  service("web", "shop"),
);

// Envoy Gateway's basic-auth example, as its docs write it.
const ENVOY_BASIC_AUTH = `apiVersion: gateway.envoyproxy.io/v1alpha1
kind: SecurityPolicy
metadata: { name: basic-auth-example, namespace: shop }
spec:
  targetRefs:
    - group: gateway.networking.k8s.io
      kind: HTTPRoute
      name: web
  basicAuth:
    users: { name: basic-auth }
`;

// Istio's AuthorizationPolicy attached to a Gateway API Gateway (targetRefs, Istio 1.22+).
const ISTIO_AUTHZ = `apiVersion: security.istio.io/v1
kind: AuthorizationPolicy
metadata: { name: deny-admin, namespace: shop }
spec:
  targetRefs: [{ kind: Gateway, group: gateway.networking.k8s.io, name: gw }]
  action: DENY
  rules: [{ to: [{ operation: { paths: ["/admin*"] } }] }]
`;

// NGINX Gateway Fabric's single targetRef, on the backend Service.
const NGINX_ON_SERVICE = `apiVersion: gateway.nginx.org/v1alpha1
kind: UpstreamSettingsPolicy
metadata: { name: keepalive, namespace: shop }
spec:
  targetRef: { group: core, kind: Service, name: web }
  keepAlive: { connections: 32 }
`;

const withAcknowledged = (list: string) =>
  edgeConfig("t").replace("clusters: [{ name: c1 }] }", `clusters: [{ name: c1 }], acknowledgedPolicies: ${list} }`);

describe("another implementation's policies", () => {
  it("is an error naming the policy, what it targets and why, for a route, a Gateway and a Service this edge serves", async ({
    expect,
  }) => {
    const { diagnostics, table } = await compileYaml(edgeConfig("t"), {
      c1: yamlDocs(APP, ENVOY_BASIC_AUTH, ISTIO_AUTHZ, NGINX_ON_SERVICE),
    });
    const notEnforced = diagnostics.filter((d) => d.reason === "NotEnforced");
    expect(notEnforced.map((d) => [d.severity, d.object.kind, d.object.name])).toEqual([
      ["error", "SecurityPolicy", "basic-auth-example"],
      ["error", "AuthorizationPolicy", "deny-admin"],
      ["error", "UpstreamSettingsPolicy", "keepalive"],
    ]);
    expect(notEnforced[0]!.message).toContain(
      "gateway.envoyproxy.io SecurityPolicy targets HTTPRoute shop/web, which this edge serves, but it is not enforced by kedge",
    );
    expect(notEnforced[1]!.message).toContain("security.istio.io AuthorizationPolicy targets Gateway shop/gw");
    expect(notEnforced[2]!.message).toContain("UpstreamSettingsPolicy targets Service shop/web");
    // The route itself is still compiled: what --strict does with the error is the sync's choice.
    expect(table.rules.map((r) => r.id)).toEqual(["c1/shop/web/rule/0"]);
  });

  it("says nothing when the target is not served (another Gateway's route, another cluster's object)", async ({ expect }) => {
    const other = ENVOY_BASIC_AUTH.replace("name: web", "name: elsewhere");
    const edge = edgeConfig("t").replace("[{ name: c1 }]", "[{ name: c1 }, { name: c2 }]");
    const { diagnostics } = await compileYaml(edge, { c1: yamlDocs(APP, other), c2: ENVOY_BASIC_AUTH });
    expect(diagnostics.filter((d) => d.reason === "NotEnforced")).toEqual([]);
  });

  it("is a warning once kedge.yaml acknowledges the kind, or just that policy", async ({ expect }) => {
    const byKind = await compileYaml(withAcknowledged("[{ group: gateway.envoyproxy.io, kind: SecurityPolicy }]"), {
      c1: yamlDocs(APP, ENVOY_BASIC_AUTH, ISTIO_AUTHZ),
    });
    expect(byKind.diagnostics.filter((d) => d.reason === "NotEnforced").map((d) => `${d.severity} ${d.object.kind}`)).toEqual([
      "warning SecurityPolicy",
      "error AuthorizationPolicy",
    ]);
    const otherName = await compileYaml(
      withAcknowledged("[{ group: gateway.envoyproxy.io, kind: SecurityPolicy, namespace: shop, name: someone-else }]"),
      { c1: yamlDocs(APP, ENVOY_BASIC_AUTH) },
    );
    expect(otherName.diagnostics.find((d) => d.reason === "NotEnforced")?.severity).toBe("error");
  });
});
