/**
 * What an operator changes, seen by the diff and said by the history's one line: a cluster drained, disabled or
 * given a priority, a cluster's weight, a route's weights, endpoints added, gone or turned not ready; and
 * versions named by a unique prefix, git-style.
 */
import { describe, it } from "vitest";
import { changeSummary } from "../../scripts/report/change-summary";
import { diffLines, diffTables } from "../../scripts/report/diff-tables";
import { MIN_PREFIX, resolveVersion } from "../../scripts/store/version-prefix";
import { UserError } from "../../scripts/lib/user-error";
import type { RouteTable } from "../../src/table/route-table";
import { compileYaml } from "../support/compile-fixture";
import { endpointSlice, gatewayAndRoute, service, yamlDocs } from "../support/manifests";

interface Shape {
  /** kedge.yaml settings of cluster eu, as YAML flow entries (`state: Draining`). */
  eu?: string;
  /** The route's weights for v1 and v2. */
  weights?: [number, number];
  /** eu's endpoints of v1: addresses, and whether ready. */
  euAddresses?: string[];
  euReady?: boolean;
}

const edge = (eu = "") => `apiVersion: kedge.dev/v1alpha1
kind: EdgeConfig
metadata: { name: ops }
spec: { gatewayClassName: kedge, clusters: [{ name: us }, { name: eu${eu ? `, ${eu}` : ""} }] }
`;

/** The same route in two clusters, to v1 and v2 of a shop; eu's v1 endpoints as the shape says. */
async function table(shape: Shape = {}): Promise<RouteTable> {
  const [w1, w2] = shape.weights ?? [90, 10];
  const route = gatewayAndRoute({
    namespace: "shop",
    hostname: "shop.example.com",
    rules: `    - backendRefs: [{ name: v1, port: 8080, weight: ${w1} }, { name: v2, port: 8080, weight: ${w2} }]`,
  });
  const common = [route, service("v1", "shop"), service("v2", "shop")];
  const slice = (name: string, svc: string, addresses: string[], ready = true) =>
    endpointSlice({ service: svc, name, namespace: "shop", port: 9000, addresses, conditions: `{ ready: ${ready} }` });
  const { table, diagnostics } = await compileYaml(edge(shape.eu), {
    us: yamlDocs(...common, slice("v1-us", "v1", ["10.0.0.1"]), slice("v2-us", "v2", ["10.0.0.2"])),
    // One slice per address: an endpoint's further addresses are not endpoints of their own.
    eu: yamlDocs(...common, ...(shape.euAddresses ?? ["10.1.0.1"]).map((a, i) => slice(`v1-eu-${i}`, "v1", [a], shape.euReady ?? true))),
  });
  if (diagnostics.some((d) => d.severity === "error")) throw new Error(JSON.stringify(diagnostics));
  return table;
}

const v1Backend = (t: RouteTable) => Object.keys(t.backends).find((id) => id.includes("/shop/v1:"))!;

describe("the diff of an operation", () => {
  it("names a cluster set to Draining by its state, though no rule, backend or endpoint changed", async ({ expect }) => {
    const [before, after] = [await table(), await table({ eu: "state: Draining" })];
    const diff = diffTables(before, after);
    expect(diff.clusters).toEqual([{ cluster: "eu", state: { from: "Serving", to: "Draining" } }]);
    expect(diff.rules.changed).toEqual([]);
    expect(diff.backends.changed).toEqual([]);
    expect(diffLines(diff)).toEqual(["  ~ cluster eu: Serving → Draining"]);
    expect(changeSummary(diff, before, after)).toBe("cluster eu Draining");
    // And back: the rollback --dry-run of a drain says the cluster serves again.
    expect(diffLines(diffTables(after, before))).toEqual(["  ~ cluster eu: Draining → Serving"]);
  });

  it("names a cluster Disabled, and the endpoints it takes out of each backend", async ({ expect }) => {
    const [before, after] = [await table(), await table({ eu: "state: Disabled" })];
    const diff = diffTables(before, after);
    expect(diff.clusters).toEqual([{ cluster: "eu", state: { from: "Serving", to: "Disabled" } }]);
    const v1 = v1Backend(after);
    expect(diff.endpoints[v1]).toMatchObject({ removed: ["eu/10.1.0.1:9000"], added: [] });
    expect(diffLines(diff)).toEqual(
      expect.arrayContaining(["  ~ cluster eu: Serving → Disabled", `  ~ backend ${v1}`, "      - endpoint eu/10.1.0.1:9000"]),
    );
    expect(changeSummary(diff, before, after)).toMatch(/^cluster eu Disabled; backend \S+ -1 endpoint$/);
  });

  it("names a priority and a cluster weight: the endpoint weights of that cluster", async ({ expect }) => {
    const [before, after] = [await table(), await table({ eu: "priority: 1, weight: 3" })];
    const diff = diffTables(before, after);
    expect(diff.clusters).toEqual([{ cluster: "eu", priority: { from: 0, to: 1 } }]);
    const v1 = v1Backend(after);
    expect(diff.endpoints[v1]?.weights).toEqual([{ id: "eu/10.1.0.1:9000", from: 1, to: 3 }]);
    expect(diffLines(diff)).toEqual(
      expect.arrayContaining(["  ~ cluster eu: priority 0 → 1", "      ~ endpoint eu/10.1.0.1:9000: weight 1 → 3"]),
    );
    // A first priority above 0 also turns failover on, table-wide.
    expect(changeSummary(diff, before, after)).toMatch(/^cluster eu priority 1; backend \S+ 1 endpoint weight changed; failover changed$/);
  });

  it("names the endpoints added and those that stop being ready, by id", async ({ expect }) => {
    const before = await table();
    const added = await table({ euAddresses: ["10.1.0.1", "10.1.0.2", "10.1.0.3"] });
    const diff = diffTables(before, added);
    const v1 = v1Backend(added);
    expect(diff.endpoints[v1]?.added).toEqual(["eu/10.1.0.2:9000", "eu/10.1.0.3:9000"]);
    expect(changeSummary(diff, before, added)).toMatch(/^backend \S+ \+2 endpoints$/);

    const notReady = diffTables(before, await table({ euReady: false }));
    expect(notReady.endpoints[v1]?.conditions).toEqual([{ id: "eu/10.1.0.1:9000", from: "ready", to: "not ready" }]);
    expect(diffLines(notReady)).toContain("      ~ endpoint eu/10.1.0.1:9000: ready → not ready");
  });

  it("names a route's weights by the backends they send to, not by field path", async ({ expect }) => {
    const [before, after] = [await table(), await table({ weights: [80, 20] })];
    const diff = diffTables(before, after);
    const [rule] = diff.rules.changed;
    expect(diff.weights[rule!]).toEqual([
      { backend: expect.stringContaining("/shop/v1:"), from: 90, to: 80 },
      { backend: expect.stringContaining("/shop/v2:"), from: 10, to: 20 },
    ]);
    expect(diff.rules.fields[rule!]).toEqual([
      expect.stringMatching(/^weight of \S+\/shop\/v1:8080: 90 → 80$/),
      expect.stringMatching(/^weight of \S+\/shop\/v2:8080: 10 → 20$/),
    ]);
    expect(changeSummary(diff, before, after)).toBe(`rule ${rule} weights 90/10 → 80/20`);
  });

  it("says a host added, and a first version by its size", async ({ expect }) => {
    const before = await table();
    const { table: after } = await compileYaml(edge(), {
      us: yamlDocs(
        gatewayAndRoute({
          namespace: "shop",
          routeHostnames: ["shop.example.com", "api.example.com"],
          rules: "    - backendRefs: [{ name: v1, port: 8080 }]",
        }),
        service("v1", "shop"),
      ),
      eu: "",
    });
    expect(changeSummary(diffTables(before, after), before, after)).toContain("host api.example.com added");
    expect(changeSummary(diffTables(null, before), null, before)).toBe("first version: 1 rule, 2 backends");
  });
});

describe("a version named by a prefix", () => {
  const kept = ["3f9c2a7e1b04d5c6a8e2", "3f9c2b0000000000aaaa", "8be01d55aa00ff001122"];
  const refusal = (given: string): string => {
    try {
      resolveVersion(given, kept, "t");
    } catch (error) {
      if (error instanceof UserError) return `${error.message} | ${error.hint}`;
      throw error;
    }
    return "(resolved)";
  };

  it("takes the whole id, or a prefix of at least 6 characters that one kept version starts with", ({ expect }) => {
    expect(MIN_PREFIX).toBe(6);
    expect(resolveVersion("8be01d55aa00ff001122", kept, "t")).toBe("8be01d55aa00ff001122");
    expect(resolveVersion("8be01d", kept, "t")).toBe("8be01d55aa00ff001122");
    expect(resolveVersion("3F9C2A7", kept, "t")).toBe("3f9c2a7e1b04d5c6a8e2");
  });

  it("refuses an ambiguous, unknown or too short prefix, naming the candidates", ({ expect }) => {
    expect(refusal("3f9c2a")).toBe("(resolved)");
    expect(refusal("3f9c2")).toMatch(
      /^version prefix 3f9c2 is too short: give at least 6 characters \| kept versions of table t: 3f9c2a7e/,
    );
    expect(refusal("3f9c2b")).toBe("(resolved)");
    expect(refusal("000000")).toMatch(/^no kept version of table t starts with 000000 \| kept versions of table t: 3f9c2a7e1b04d5c6a8e2, /);
    expect(() => resolveVersion("3f9c2", [...kept, "3f9c2c1111111111bbbb"], "t")).toThrow(/too short/);
    const ambiguous = ["3f9c2a7e1b04d5c6a8e2", "3f9c2a7f00000000cccc"];
    expect(() => resolveVersion("3f9c2a", ambiguous, "t")).toThrow(
      "version prefix 3f9c2a is ambiguous: 2 kept versions start with it (3f9c2a7e1b04d5c6a8e2, 3f9c2a7f00000000cccc)",
    );
    expect(refusal("latest")).toMatch(/^"latest" is not a version/);
  });
});
