/**
 * Every cluster counts: each configured cluster's contribution (routes, Services, ready of all endpoints) is in
 * the table and the report, a cluster that takes no traffic is a warning saying why, and every EndpointSlice
 * the edge cannot use is a warning naming the slice, its cluster and the reason.
 */
import { describe, it } from "vitest";
import { formatReport } from "../../scripts/report/report";
import { compileYaml } from "../support/compile-fixture";
import { edgeConfig, endpointSlice, gatewayAndRoute, service, yamlDocs } from "../support/manifests";
import { XBACKEND_EDGE, XBACKEND_ROUTE } from "../support/xbackend-route";

const EDGE = edgeConfig("t", "[{ name: us }, { name: eu }, { name: ap }]");
const RULES = "    - backendRefs: [{ name: web, port: 8080 }]";
const routeAndService = yamlDocs(
  gatewayAndRoute({ namespace: "shop", hostname: "shop.example.com", rules: RULES }),
  service("web", "shop"),
);
const slice = (name: string, port: number, more: Partial<Parameters<typeof endpointSlice>[0]> = {}) =>
  endpointSlice({ service: "web", name, namespace: "shop", port, ...more });

describe("the capacity account", () => {
  it("counts each cluster's routes, Services and endpoints, and says why one contributes nothing", async ({ expect }) => {
    const unlabelled = slice("web-eu-2", 2002).replace("labels: { kubernetes.io/service-name: web }", "labels: {}");
    const { table, diagnostics } = await compileYaml(EDGE, {
      us: yamlDocs(routeAndService, slice("web-us-1", 1001), slice("web-us-2", 1002, { conditions: "{ ready: false }" })),
      // The slice's port is named for another Service port, and the second slice belongs to no Service.
      eu: yamlDocs(routeAndService, slice("web-eu-1", 2001, { portName: "web" }), unlabelled),
      ap: "",
    });
    expect(table.clusters).toEqual({
      us: { account: { routes: 1, services: 1, endpoints: 2, readyEndpoints: 1 } },
      eu: {
        account: {
          routes: 1,
          services: 0,
          endpoints: 0,
          readyEndpoints: 0,
          idle: "no Service its routes send to has endpoints the edge can use (2 EndpointSlices left out: see EndpointsDropped)",
        },
      },
      ap: { account: expect.objectContaining({ routes: 0, idle: expect.stringContaining("no objects were read from it") }) },
    });
    const told = (reason: string) => diagnostics.filter((d) => d.reason === reason).map((d) => [d.severity, d.object.cluster, d.message]);
    expect(told("EndpointsDropped")).toEqual([
      [
        "warning",
        "eu",
        'EndpointSlice shop/web-eu-1 in cluster eu has no port matching Service shop/web port 8080 (a port named "http"; the slice\'s ports: "web"): its 1 endpoint is left out',
      ],
      [
        "warning",
        "eu",
        "EndpointSlice shop/web-eu-2 in cluster eu has no kubernetes.io/service-name label, so it belongs to no Service: its 1 endpoint is left out",
      ],
    ]);
    expect(told("NoTraffic")).toEqual([
      ["warning", "eu", expect.stringMatching(/^cluster eu gets no traffic: no Service its routes send to has endpoints/)],
      ["warning", "ap", expect.stringMatching(/^cluster ap gets no traffic: no objects were read from it/)],
    ]);
    // The route's aggregate says where its endpoints are, not only where the Service is.
    expect(diagnostics.find((d) => d.reason === "BackendNotFound")?.message).toBe(
      "in cluster eu: Service shop/web has no endpoints the edge can use (its EndpointSlices were left out: see EndpointsDropped); this backendRef draws its endpoints from us only",
    );
  });

  it("does not warn of a cluster whose routes send only to an external backend: no cluster capacity is lost", async ({ expect }) => {
    const external = await compileYaml(XBACKEND_EDGE, { c1: XBACKEND_ROUTE });
    expect(external.table.clusters?.c1?.account).toEqual({ routes: 1, services: 0, endpoints: 0, readyEndpoints: 0 });
    expect(external.diagnostics.filter((d) => d.reason === "NoTraffic")).toEqual([]);
    // The same route sending to a Service with no endpoints in the cluster: that cluster's capacity is what is lost.
    const internal = await compileYaml(edgeConfig("t", "[{ name: c1 }]"), { c1: routeAndService });
    expect(internal.table.clusters?.c1?.account?.idle).toMatch(/^no Service its routes send to has endpoints/);
  });

  it("says a cluster of no ready endpoint, and one Disabled on purpose (a note, not a warning)", async ({ expect }) => {
    const edge = EDGE.replace("{ name: ap }", "{ name: ap, state: Disabled }");
    const { table, diagnostics } = await compileYaml(edge, {
      us: yamlDocs(routeAndService, slice("u", 1001)),
      eu: yamlDocs(routeAndService, slice("e", 2001, { conditions: "{ ready: false }" })),
      ap: yamlDocs(routeAndService, slice("a", 3001)),
    });
    expect(table.clusters?.eu?.account?.idle).toBe("none of its 1 endpoint is ready");
    expect(table.clusters?.ap).toMatchObject({ disabled: true, account: { endpoints: 0, idle: expect.stringContaining("Disabled") } });
    expect(diagnostics.filter((d) => d.reason === "NoTraffic").map((d) => [d.object.cluster, d.severity])).toEqual([
      ["eu", "warning"],
      ["ap", "info"],
    ]);
  });
});

describe("the text report", () => {
  it("lists every configured cluster with what it contributes, and shows every warning the JSON report has", async ({ expect }) => {
    // The only ready endpoint is in a draining cluster: the warning is told of the merged backend (us,eu).
    const edge = EDGE.replace("{ name: eu }", "{ name: eu, state: Draining }");
    const result = await compileYaml(edge, {
      us: yamlDocs(routeAndService, slice("u", 1001, { conditions: "{ ready: false }" })),
      eu: yamlDocs(routeAndService, slice("e", 2001)),
    });
    const text = formatReport({ ...result, skipped: [], clusters: ["us", "eu", "ap"] });
    expect(text).toContain(
      "clusters:\n  us  Serving; 1 route, 1 Service, 0 of 1 endpoint ready; no traffic: none of its 1 endpoint is ready\n",
    );
    expect(text).toContain("  eu  Draining; 1 route, 1 Service, 1 of 1 endpoint ready\n");
    expect(text).toContain("  ap  Serving; 0 routes, 0 Services, 0 of 0 endpoints ready; no traffic: no objects were read from it");
    for (const d of result.diagnostics.filter((d) => d.severity !== "info")) expect(text).toContain(d.message);
    expect(text).toContain("new requests for it answer 503");
  });
});
