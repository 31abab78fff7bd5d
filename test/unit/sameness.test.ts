import { describe, it } from "vitest";
import { copiesOfEach, firstDifference } from "../../src/compile/input/sameness";
import type { Manifest } from "../../src/gateway-api/manifest";
import { formatReport } from "../../scripts/report/report";
import { compileYaml } from "../support/compile-fixture";
import { edgeConfig, endpointSlice, gatewayAndRoute, service, yamlDocs } from "../support/manifests";

const EDGE = edgeConfig("t", "[{ name: east, weight: 2 }, { name: west }, { name: south }]");

/** The same Gateway, route and Service in a cluster, with one endpoint on `port`. */
function shop(port: number, rules = "    - backendRefs: [{ name: web, port: 8080 }]", created?: string): string {
  const manifests = gatewayAndRoute({ namespace: "shop", hostname: "shop.example.com", rules });
  const dated = created
    ? manifests.replace(
        "metadata: { name: web, namespace: shop }",
        `metadata: { name: web, namespace: shop, creationTimestamp: "${created}" }`,
      )
    : manifests;
  return yamlDocs(dated, service("web", "shop"), endpointSlice({ service: "web", name: `web-${port}`, namespace: "shop", port }));
}

describe("the same manifests in every cluster (namespace sameness)", () => {
  it("are one route whose Service backendRef spreads over every cluster's endpoints, by cluster weight", async ({ expect }) => {
    const { table, statuses, diagnostics } = await compileYaml(EDGE, { east: shop(1001), west: shop(2001), south: shop(3001) });
    expect(table.rules.map((r) => r.id)).toEqual(["east,west,south/shop/web/rule/0"]);
    expect(table.listeners.map((l) => l.id)).toEqual(["east,west,south/shop/gw/http"]);
    const backend = table.backends[table.rules[0]!.backendRefs[0]!.backend!]!;
    expect(backend.id).toBe("Service/east,west,south/shop/web:8080");
    expect(backend.endpoints.map((e) => [e.id, e.weight])).toEqual([
      ["east/127.0.0.1:1001", 2],
      ["west/127.0.0.1:2001", 1],
      ["south/127.0.0.1:3001", 1],
    ]);
    // Every cluster's copy is reported accepted, as part of the one route.
    const routes = statuses.filter((s) => s.object.kind === "HTTPRoute");
    expect(routes.map((s) => [s.object.cluster, s.parents?.[0]?.conditions[0]?.status])).toEqual([
      ["east", "True"],
      ["west", "True"],
      ["south", "True"],
    ]);
    expect(routes[1]?.parents?.[0]?.conditions[0]?.message).toBe(
      "one route across clusters east, west, south; Service shop/web:8080 from east, west, south",
    );
    expect(diagnostics.filter((d) => d.severity !== "info")).toEqual([]);
  });

  it("serves the oldest copy's spec when copies differ, and every cluster holding a copy keeps serving under it", async ({ expect }) => {
    const weighted = (w: number) => `    - backendRefs: [{ name: web, port: 8080, weight: ${w} }]`;
    const { table, statuses, diagnostics } = await compileYaml(EDGE, {
      east: shop(1001, weighted(1), "2026-03-01T00:00:00Z"),
      // Older, though its cluster comes later: its spec is served.
      west: shop(2001, weighted(5), "2026-01-01T00:00:00Z"),
      south: shop(3001, weighted(1), "2026-02-01T00:00:00Z"),
    });
    // One route in conflict: the served spec (weight 5), with every copy's cluster's endpoints.
    expect(table.rules.map((r) => r.id)).toEqual(["east,west,south/shop/web/rule/0"]);
    expect(table.rules[0]?.backendRefs[0]?.weight).toBe(5);
    const backend = table.backends[table.rules[0]!.backendRefs[0]!.backend!]!;
    expect(backend.endpoints.map((e) => e.id)).toEqual(["east/127.0.0.1:1001", "west/127.0.0.1:2001", "south/127.0.0.1:3001"]);
    const conflicted = diagnostics.filter((d) => d.reason === "Conflicted");
    // Oldest first.
    expect(conflicted.map((d) => [d.object.cluster, d.field, d.severity])).toEqual([
      ["south", "spec.rules[0].backendRefs[0].weight", "warning"],
      ["east", "spec.rules[0].backendRefs[0].weight", "warning"],
    ]);
    expect(conflicted[0]?.message).toBe(
      "this copy differs from the copy in cluster west (older, served) at spec.rules[0].backendRefs[0].weight: that copy's spec is served, and this cluster's endpoints serve under it",
    );
    // Each copy's status says whether it is the served copy; a differing one which is, and where it differs.
    const parentOf = (cluster: string) =>
      statuses.find((s) => s.object.kind === "HTTPRoute" && s.object.cluster === cluster)?.parents?.[0]?.conditions;
    expect(parentOf("west")?.[0]).toMatchObject({
      type: "Accepted",
      status: "True",
      message: expect.stringContaining("the spec of the copy in cluster west is served (the copies in east, south differ)"),
    });
    expect(parentOf("east")?.map((c) => [c.type, c.status, c.reason])).toEqual([
      ["Accepted", "True", "Accepted"],
      ["ResolvedRefs", "True", "ResolvedRefs"],
      ["Conflicted", "True", "Conflicted"],
    ]);
    expect(parentOf("east")?.[2]?.message).toContain(
      "differs from the copy in cluster west (older, served) at spec.rules[0].backendRefs[0].weight",
    );
    expect(Object.values(table.clusters ?? {}).map((c) => c.account?.routes)).toEqual([1, 1, 1]);
  });

  it("checks a differing copy's backendRefs too: one its cluster lacks is a warning on that copy, before it ever serves", async ({
    expect,
  }) => {
    const rollout = `    - backendRefs: [{ name: web, port: 8080, weight: 80 }, { name: web-v22, port: 8080, weight: 20 }]`;
    const { table, diagnostics } = await compileYaml(EDGE, {
      east: shop(1001, undefined, "2026-01-01T00:00:00Z"),
      west: shop(2001, rollout, "2026-02-01T00:00:00Z"),
    });
    // The served copy (east's) is compiled as before: web alone.
    expect(table.rules[0]?.backendRefs.map((b) => b.backend)).toEqual(["Service/east,west/shop/web:8080"]);
    expect(
      diagnostics.filter((d) => d.reason === "BackendNotFound").map((d) => [d.severity, d.object.cluster, d.field, d.message]),
    ).toEqual([
      [
        "warning",
        "west",
        "spec.rules[0].backendRefs[1].name",
        "Service shop/web-v22 not found in cluster west (Services in namespace shop: web): this copy is not served now (the copy in cluster east is); once it is, this cluster has nothing to send that backendRef's requests to",
      ],
    ]);
  });

  it("a differing copy whose parentRef the served copy does not name is not served through it", async ({ expect }) => {
    const other = gatewayAndRoute({
      namespace: "shop",
      hostname: "shop.example.com",
      rules: "    - backendRefs: [{ name: web, port: 8080 }]",
    }).replace("parentRefs: [{ name: gw }]", "parentRefs: [{ name: gw, sectionName: http }]");
    const { statuses } = await compileYaml(EDGE, {
      east: shop(1001, undefined, "2026-01-01T00:00:00Z"),
      west: yamlDocs(
        other.replace(
          "metadata: { name: web, namespace: shop }",
          'metadata: { name: web, namespace: shop, creationTimestamp: "2026-02-01T00:00:00Z" }',
        ),
        service("web", "shop"),
        endpointSlice({ service: "web", name: "w", namespace: "shop", port: 2001 }),
      ),
    });
    const west = statuses.find((s) => s.object.kind === "HTTPRoute" && s.object.cluster === "west");
    expect(west?.parents?.[0]?.conditions[0]).toMatchObject({ type: "Accepted", status: "False", reason: "Conflicted" });
  });

  it("keeps a route that exists in one cluster only on that cluster's Service", async ({ expect }) => {
    const { table } = await compileYaml(EDGE, {
      east: shop(1001),
      west: yamlDocs(service("web", "shop"), endpointSlice({ service: "web", name: "w", namespace: "shop", port: 2001 })),
    });
    expect(table.rules.map((r) => r.id)).toEqual(["east/shop/web/rule/0"]);
    expect(Object.keys(table.backends)).toEqual(["Service/east/shop/web:8080"]);
  });

  it("orders routes by their first copy that attaches: a copy its cluster has no Gateway for does not move the route", async ({
    expect,
  }) => {
    const route = (name: string, gateway: string) => `---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: { name: ${name}, namespace: shop }
spec:
  parentRefs: [{ name: ${gateway} }]
  rules: [{ backendRefs: [{ name: web, port: 8080 }] }]
`;
    const gateway = (name: string) => `---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: { name: ${name}, namespace: shop }
spec:
  gatewayClassName: kedge
  listeners: [{ name: http, protocol: HTTP, port: 80, hostname: ${name}.example.com }]
`;
    const backend = yamlDocs(service("web", "shop"), endpointSlice({ service: "web", name: "web-1", namespace: "shop", port: 1001 }));
    const { table, statuses, diagnostics } = await compileYaml(EDGE, {
      // East reads route a first, but has no Gateway "other": its copy of a is told and left out.
      east: yamlDocs(gateway("gw"), route("a", "other"), route("b", "gw"), backend),
      west: yamlDocs(gateway("other"), route("a", "other"), backend),
    });
    expect(table.rules.map((r) => r.id)).toEqual(["east/shop/b/rule/0", "west/shop/a/rule/0"]);
    expect(statuses.filter((s) => s.object.kind === "HTTPRoute").map((s) => `${s.object.cluster}/${s.object.name}`)).toEqual([
      "east/b",
      "west/a",
    ]);
    expect(diagnostics.filter((d) => d.reason === "NoMatchingParent").map((d) => [d.object.cluster, d.object.name, d.severity])).toEqual([
      ["east", "a", "warning"],
    ]);
  });

  it("the report says which clusters a merged route and its backends draw from", async ({ expect }) => {
    const result = await compileYaml(EDGE, { east: shop(1001), west: shop(2001) });
    const report = formatReport({ ...result, skipped: [], clusters: ["east", "west", "south"] });
    expect(report).toContain(
      "  HTTPRoute shop/web\n    aggregate across clusters: east, west\n    backend Service shop/web:8080 from east, west\n",
    );
  });
});

describe("firstDifference", () => {
  it("names the first differing path, or null for equal values", ({ expect }) => {
    expect(firstDifference({ a: [1, { b: 2 }] }, { a: [1, { b: 2 }] }, "spec")).toBeNull();
    expect(firstDifference({ a: [1, { b: 2 }] }, { a: [1, { b: 3 }] }, "spec")).toBe("spec.a[1].b");
    expect(firstDifference({ a: [1] }, { a: [1, 2] }, "spec")).toBe("spec.a[1]");
    expect(firstDifference({ b: 1, a: 1 }, { b: 2, a: 2 }, "spec")).toBe("spec.a");
    expect(firstDifference({ a: 1 }, { a: 1, z: null }, "spec")).toBe("spec.z");
  });
});

describe("copiesOfEach", () => {
  const object = (cluster: string, apiVersion: string, kind: string, namespace: string, name: string): Manifest => {
    const metadata = { name, namespace, labels: {} };
    const raw = { apiVersion, kind, metadata, spec: {} };
    return { cluster, file: `${cluster}.yaml`, line: 1, apiVersion, kind, metadata, spec: raw.spec, status: {}, raw };
  };

  it("groups copies by API group, kind, namespace and name, each group where its first copy was read", ({ expect }) => {
    const objects = [
      object("east", "gateway.networking.k8s.io/v1", "HTTPRoute", "a", "web"),
      object("east", "gateway.networking.k8s.io/v1", "HTTPRoute", "b", "web"),
      object("east", "gateway.networking.k8s.io/v1", "HTTPRoute", "a", "api"),
      // Another version of the same group is the same object; another group or namespace is not.
      object("west", "gateway.networking.k8s.io/v1beta1", "HTTPRoute", "a", "web"),
      object("west", "example.com/v1", "HTTPRoute", "a", "web"),
      object("west", "gateway.networking.k8s.io/v1", "HTTPRoute", "b", "api"),
      object("south", "gateway.networking.k8s.io/v1", "HTTPRoute", "b", "web"),
    ];
    const groups = [...copiesOfEach(objects)].map((copies) =>
      copies.map((m) => `${m.cluster}:${m.apiVersion}/${m.metadata.namespace}/${m.metadata.name}`),
    );
    expect(groups).toEqual([
      ["east:gateway.networking.k8s.io/v1/a/web", "west:gateway.networking.k8s.io/v1beta1/a/web"],
      ["east:gateway.networking.k8s.io/v1/b/web", "south:gateway.networking.k8s.io/v1/b/web"],
      ["east:gateway.networking.k8s.io/v1/a/api"],
      ["west:example.com/v1/a/web"],
      ["west:gateway.networking.k8s.io/v1/b/api"],
    ]);
  });

  it("puts a group where its first leading copy was read, else where its first copy was", ({ expect }) => {
    const objects = [
      object("east", "v1", "Service", "a", "web"),
      object("east", "v1", "Service", "a", "api"),
      object("west", "v1", "Service", "a", "web"),
      object("east", "v1", "Service", "a", "db"),
      object("west", "v1", "Service", "a", "db"),
    ];
    // Only west's copies lead: web moves to where west's copy was read; api has none that leads and stays.
    const groups = [...copiesOfEach(objects, (m) => m.cluster === "west")].map((copies) =>
      copies.map((m) => `${m.cluster}/${m.metadata.name}`),
    );
    expect(groups).toEqual([["east/api"], ["east/web", "west/web"], ["east/db", "west/db"]]);
  });
});
