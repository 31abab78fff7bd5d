/**
 * Drain, disable and priority as kedge.yaml declares them, in the parts that run without a Worker: the
 * settings' checks, what the compiler puts in the table, where a retry goes, and what explain says. The
 * Worker's behaviour and its status page are test/worker/cluster-states.test.ts.
 */
import { describe, it } from "vitest";
import { parse } from "yaml";
import { EdgeConfigError, parseEdgeConfig } from "../../src/compile/input/edge-config";
import { failoverEndpoint } from "../../src/routing/endpoint-pool";
import { explainRequest } from "../../src/routing/explain";
import { prepareTable } from "../../src/routing/prepared-table";
import { preferredByPriority } from "../../src/routing/priority";
import type { CompiledEndpoint, RouteTable } from "../../src/table/route-table";
import { compileYaml } from "../support/compile-fixture";
import { endpointSlice, gatewayAndRoute, service, yamlDocs } from "../support/manifests";
import { readyEndpoint } from "../support/endpoints";

const edge = (clusters: string, extra = "") => `apiVersion: kedge.dev/v1alpha1
kind: EdgeConfig
metadata: { name: states }
spec:
  gatewayClassName: kedge
${extra}  clusters:
${clusters}`;

/** One cluster's objects: the route over Service web, with one endpoint per address of `addresses`. */
const objects = (cluster: string, addresses: string[]) =>
  yamlDocs(
    gatewayAndRoute({ namespace: "shop", hostname: "shop.example", rules: "    - backendRefs: [{ name: web, port: 8080 }]" }),
    service("web", "shop"),
    ...addresses.map((address, i) =>
      endpointSlice({ service: "web", name: `web-${cluster}-${i}`, namespace: "shop", port: 8080, addresses: [address] }),
    ),
  );

const THREE = {
  east: objects("east", ["10.1.0.1", "10.1.0.2"]),
  west: objects("west", ["10.2.0.1"]),
  south: objects("south", ["10.3.0.1"]),
};

async function compile(clusters: string, extra = ""): Promise<RouteTable> {
  const { table } = await compileYaml(edge(clusters, extra), THREE);
  return table;
}

describe("kedge.yaml cluster state and priority", () => {
  const read =
    (clusters: string, extra = "") =>
    () =>
      parseEdgeConfig(parse(edge(clusters, extra)), "kedge.yaml");

  it("defaults to Serving at priority 0, and refuses what it cannot use, each at its field", ({ expect }) => {
    expect(read("    - { name: east }\n")().clusters[0]).toMatchObject({ state: "Serving", priority: 0 });
    expect(read("    - { name: east, state: Paused }\n")).toThrow(/spec\.clusters\[0\]\.state: must be one of Serving, Draining, Disabled/);
    expect(read("    - { name: east, priority: -1 }\n")).toThrow(/spec\.clusters\[0\]\.priority: must be/);
    expect(read("    - { name: east }\n", "  failover: { minHealthyEndpoints: 2 }\n")).toThrow(EdgeConfigError);
    expect(read("    - { name: east }\n", "  failover: { minHealthyEndpoints: 2 }\n")).toThrow(
      /spec\.failover: is set, but no cluster has a priority above 0/,
    );
  });
});

describe("the table", () => {
  it("says which clusters drain, are disabled or stand by, and leaves out a disabled cluster's endpoints", async ({ expect }) => {
    const table = await compile(
      "    - { name: east }\n    - { name: west, state: Draining }\n    - { name: south, state: Disabled, priority: 2 }\n",
      "  failover: { minHealthyEndpoints: 2 }\n",
    );
    expect(table.clusters).toMatchObject({
      east: { account: { routes: 1, endpoints: 2, readyEndpoints: 2 } },
      west: { draining: true, account: { endpoints: 1 } },
      south: { disabled: true, priority: 2, account: { endpoints: 0, idle: expect.stringContaining("Disabled") } },
    });
    expect(table.clusters?.east).not.toHaveProperty("draining");
    expect(table.failover).toEqual({ minHealthyEndpoints: 2 });
    expect(Object.values(table.backends)[0]!.endpoints.map((e) => e.id)).toEqual([
      "east/10.1.0.1:8080",
      "east/10.1.0.2:8080",
      "west/10.2.0.1:8080",
    ]);
  });

  it("says only what each cluster contributes when every one serves at priority 0", async ({ expect }) => {
    const table = await compile("    - { name: east }\n    - { name: west }\n    - { name: south }\n");
    expect(Object.values(table.clusters ?? {}).map((c) => Object.keys(c))).toEqual([["account"], ["account"], ["account"]]);
    expect(table.failover).toBeUndefined();
  });
});

describe("choosing by priority", () => {
  it("keeps a retry at the primaries' priority while one is untried, even in the cluster that just failed", async ({ expect }) => {
    const table = await compile("    - { name: east }\n    - { name: west, priority: 1 }\n    - { name: south, priority: 1 }\n");
    const prepared = prepareTable(table);
    const backend = [...prepared.backends.values()][0]!;
    const east = backend.backend.endpoints.filter((e) => e.cluster === "east");
    const all = { generation: 0, allUsable: true, usable: () => true };
    expect(failoverEndpoint(prepared, backend, {}, all, [east[0]!], 0.5)?.id).toBe(east[1]!.id);
    expect(["west", "south"]).toContain(failoverEndpoint(prepared, backend, {}, all, east, 0.5)?.cluster);
  });

  it("spreads a retry over the standby too while the primaries lack the threshold, never onto a lone primary alone", async ({ expect }) => {
    const table = await compile(
      "    - { name: east }\n    - { name: west, priority: 1 }\n    - { name: south, priority: 1 }\n",
      "  failover: { minHealthyEndpoints: 3 }\n",
    );
    const prepared = prepareTable(table);
    const backend = [...prepared.backends.values()][0]!;
    const [east1, east2] = backend.backend.endpoints.filter((e) => e.cluster === "east");
    const west = backend.backend.endpoints.find((e) => e.cluster === "west")!;
    // east2 is unhealthy: one usable primary, fewer than 3, so new traffic spreads over the standbys too.
    const health = { generation: 1, allUsable: false, usable: (e: CompiledEndpoint) => e.id !== east2!.id };
    const retries = new Set<string>();
    for (let i = 0; i < 40; i++) retries.add(failoverEndpoint(prepared, backend, {}, health, [west], i / 40)!.cluster);
    expect([...retries].sort()).toEqual(["east", "south"]);
    expect(east1).toBeDefined();
  });

  it("widens to the next priority cumulatively until the threshold is met, and takes everything when none is", ({ expect }) => {
    const table = {
      clusters: { b: { priority: 1 }, c: { priority: 2 } },
      failover: { minHealthyEndpoints: 3 },
    } as unknown as RouteTable;
    const ids = (list: CompiledEndpoint[]) => list.map((e) => e.id);
    const a = [readyEndpoint("a", 1), readyEndpoint("a", 2), readyEndpoint("a", 3)];
    const b = [readyEndpoint("b", 4)];
    const c = [readyEndpoint("c", 5), readyEndpoint("c", 6)];
    expect(ids(preferredByPriority(table, [...a, ...b, ...c]))).toEqual(ids(a));
    expect(ids(preferredByPriority(table, [a[0]!, ...b, ...c]))).toEqual(ids([a[0]!, ...b, ...c]));
    expect(ids(preferredByPriority(table, [a[0]!, a[1]!, ...b, ...c]))).toEqual(ids([a[0]!, a[1]!, ...b]));
    expect(ids(preferredByPriority(table, [...c]))).toEqual(ids(c));
  });
});

describe("explain", () => {
  it("explain marks a draining cluster's endpoints and gives each endpoint's priority", async ({ expect }) => {
    const table = await compile("    - { name: east }\n    - { name: west, state: Draining }\n    - { name: south, priority: 1 }\n");
    const request = {
      protocol: "HTTP" as const,
      host: "shop.example",
      port: 80,
      path: "/",
      method: "GET",
      headers: new Headers(),
      query: new URLSearchParams(),
    };
    const endpoints = explainRequest(prepareTable(table), request).backends[0]!.endpoints;
    expect(endpoints.map((e) => [e.cluster, e.inPool, e.draining ?? false, e.priority])).toEqual([
      ["east", true, false, 0],
      ["east", true, false, 0],
      ["west", false, true, 0],
      ["south", false, false, 1],
    ]);
  });
});
