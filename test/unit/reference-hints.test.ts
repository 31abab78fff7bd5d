/**
 * A mistyped reference gets help, as a mistyped field does: the Gateway, listener, Service, XBackend or port it
 * could have meant, the names that exist, and what the ReferenceGrants of the target's namespace allow.
 */
import { describe, it } from "vitest";
import { compileYaml } from "../support/compile-fixture";
import { edgeConfig, gatewayAndRoute, service, yamlDocs } from "../support/manifests";

const EDGE = edgeConfig("t");
const messages = async (yaml: string, reason: string) =>
  (await compileYaml(EDGE, { c1: yaml })).diagnostics.filter((d) => d.reason === reason).map((d) => d.message);

describe("did you mean, for references", () => {
  it("names the Gateway a parentRef could have meant, and the Gateways of the edge there", async ({ expect }) => {
    const yaml = gatewayAndRoute({ namespace: "shop", rules: "    - backendRefs: [{ name: web, port: 8080 }]" })
      .replace("name: gw, namespace: shop", "name: edge, namespace: shop")
      .replace("parentRefs: [{ name: gw }]", "parentRefs: [{ name: egde }]");
    expect(await messages(yamlDocs(yaml, service("web", "shop")), "NoMatchingParent")).toEqual([
      "no Gateway of this edge named egde in cluster c1; route ignored (did you mean edge? Gateways of this edge in namespace shop: edge)",
    ]);
  });

  it("a route attached to nothing anywhere is an error; a copy left out while another cluster's copy attaches, a warning", async ({
    expect,
  }) => {
    const attached = gatewayAndRoute({ namespace: "shop", rules: "    - backendRefs: [{ name: web, port: 8080 }]" });
    const mistyped = attached.replace("parentRefs: [{ name: gw }]", "parentRefs: [{ name: gateway }]");
    const told = async (clusters: Record<string, string>) =>
      (await compileYaml(EDGE.replace("[{ name: c1 }]", "[{ name: c1 }, { name: c2 }]"), clusters)).diagnostics
        .filter((d) => d.reason === "NoMatchingParent")
        .map((d) => `${d.severity} ${d.object.cluster}: ${d.message.split(" (")[0]}`);
    expect(await told({ c1: yamlDocs(mistyped, service("web", "shop")), c2: yamlDocs(mistyped, service("web", "shop")) })).toEqual([
      "error c1: no Gateway of this edge named gateway in cluster c1; route ignored",
      "error c2: no Gateway of this edge named gateway in cluster c2; route ignored",
    ]);
    // c2 has the same route but no Gateway: its copy is left out, the route serves from c1.
    const routeOnly = attached.slice(attached.indexOf("kind: HTTPRoute") - "apiVersion: gateway.networking.k8s.io/v1\n".length);
    expect(await told({ c1: yamlDocs(attached, service("web", "shop")), c2: yamlDocs(routeOnly, service("web", "shop")) })).toEqual([
      "warning c2: no Gateway of this edge named gw in cluster c2; this copy is ignored",
    ]);
    // Another controller's route (its Gateway, of another class, in c1 only), applied to both clusters: not kedge's typo.
    const theirs = attached.replace("gatewayClassName: kedge", "gatewayClassName: envoy").replaceAll("name: gw", "name: envoy");
    const theirRoute = theirs.slice(theirs.indexOf("kind: HTTPRoute") - "apiVersion: gateway.networking.k8s.io/v1\n".length);
    expect(await told({ c1: yamlDocs(attached.replace("name: web, namespace", "name: mine, namespace"), theirs), c2: theirRoute })).toEqual(
      ["warning c2: no Gateway of this edge named envoy in cluster c2; route ignored"],
    );
    // A route with no Gateway parentRef at all is said, not refused.
    const orphan = routeOnly.replace("parentRefs: [{ name: gw }]", "parentRefs: []");
    expect(await told({ c1: yamlDocs(attached.replace("name: web, namespace", "name: mine, namespace"), orphan) })).toEqual([
      "warning c1: route has no Gateway parentRef; ignored",
    ]);
  });

  it("names the Service a backendRef could have meant, and the Services of its namespace", async ({ expect }) => {
    const route = gatewayAndRoute({ namespace: "shop", rules: "    - backendRefs: [{ name: api-v3, port: 8080 }]" });
    expect(await messages(yamlDocs(route, service("api-v1", "shop"), service("api-v2", "shop")), "BackendNotFound")).toEqual([
      expect.stringContaining(
        "Service shop/api-v3 not found in cluster c1 (did you mean api-v1 or api-v2? Services in namespace shop: api-v1, api-v2)",
      ),
    ]);
    const typo = gatewayAndRoute({ namespace: "shop", rules: "    - backendRefs: [{ name: wbe, port: 8080 }]" });
    expect(await messages(yamlDocs(typo, service("web", "shop"), service("db", "shop")), "BackendNotFound")).toEqual([
      expect.stringContaining("Service shop/wbe not found in cluster c1 (did you mean web? Services in namespace shop: web, db)"),
    ]);
  });

  it("lists the ports a Service has when the backendRef names another", async ({ expect }) => {
    const route = gatewayAndRoute({ namespace: "shop", rules: "    - backendRefs: [{ name: web, port: 9090 }]" });
    expect(await messages(yamlDocs(route, service("web", "shop")), "BackendNotFound")).toEqual([
      expect.stringContaining("Service shop/web has no port 9090 in cluster c1 (its ports: 8080 (http))"),
    ]);
  });

  it("says what the target namespace's ReferenceGrants allow, and the namespace one could have meant", async ({ expect }) => {
    const route = gatewayAndRoute({ namespace: "shop", rules: "    - backendRefs: [{ name: db, namespace: data, port: 8080 }]" });
    const grant = `apiVersion: gateway.networking.k8s.io/v1beta1
kind: ReferenceGrant
metadata: { name: from-shop, namespace: data }
spec:
  from: [{ group: gateway.networking.k8s.io, kind: HTTPRoute, namespace: shopp }]
  to: [{ group: "", kind: Service }]
`;
    expect(await messages(yamlDocs(route, service("db", "data"), grant), "RefNotPermitted")).toEqual([
      expect.stringContaining(
        "no ReferenceGrant in namespace data allows this route to use Service db (a grant names namespace shopp: did you mean shop?; ReferenceGrants there: from-shop lets HTTPRoute from shopp use Service)",
      ),
    ]);
  });
});
