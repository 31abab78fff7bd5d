/**
 * The --dry-run diff: hosts, rules and backends added, removed and changed between the served table and
 * the new one, whichever side is missing, and nothing at all between a table and itself; and the large-drop
 * refusal, which shows the same diff.
 */
import { describe, expect, it } from "vitest";
import { diffLines, diffTables } from "../../scripts/report/diff-tables";
import { largeDrop } from "../../scripts/checks/large-drop";
import type { RouteTable } from "../../src/table/route-table";
import { compileYaml } from "../support/compile-fixture";
import { EDGE_YAML } from "../support/conformance-infra";
import { manyHostsYaml } from "../support/many-hosts";
import { edgeConfig, endpointSlice, gatewayAndRoute, service, yamlDocs } from "../support/manifests";

const PORTS = { v1: 1001, v2: 1002, v3: 1003 };

async function compiled(ports: typeof PORTS, routes: number): Promise<RouteTable> {
  const { table, diagnostics } = await compileYaml(EDGE_YAML, { c1: manyHostsYaml(ports, routes) });
  expect(diagnostics.filter((d) => d.severity === "error")).toEqual([]);
  return table;
}

describe("diffTables", () => {
  it("names the rules added and removed and the backend whose endpoints changed", async () => {
    const served = await compiled(PORTS, 10);
    const next = await compiled({ ...PORTS, v2: 2002 }, 12);
    const added = next.rules.map((r) => r.id).filter((id) => !served.rules.some((r) => r.id === id));
    expect(added.length).toBeGreaterThan(0);

    const forward = diffTables(served, next);
    expect(forward.from).toBe(served.version);
    expect(forward.to).toBe(next.version);
    expect(forward.rules).toEqual({ added: added.sort(), removed: [], changed: [], fields: {} });
    const v2 = Object.keys(next.backends).filter((id) => id.includes("infra-backend-v2"));
    expect(v2.length).toBeGreaterThan(0);
    expect(forward.backends).toMatchObject({ added: [], removed: [], changed: v2.sort() });
    // In words, not field paths: the endpoint on the old port left, one on the new port came.
    expect(forward.backends.fields[v2[0]!]).toEqual([]);
    expect(forward.endpoints[v2[0]!]).toEqual({
      added: [expect.stringMatching(/:2002$/)],
      removed: [expect.stringMatching(/:1002$/)],
      conditions: [],
      weights: [],
      other: [],
    });
    expect(diffLines(forward)).toEqual(
      expect.arrayContaining([
        `  ~ backend ${v2[0]}`,
        expect.stringMatching(/^ {6}\+ endpoint .*:2002$/),
        expect.stringMatching(/^ {6}- endpoint .*:1002$/),
      ]),
    );
    expect(forward.hostsChanged).toBe(true);
    // Route 10 serves *.w1.example, route 11 h11 and h12: hosts nothing served before.
    expect(forward.hosts).toEqual({ added: ["*.w1.example", "h11.example", "h12.example"], removed: [], changed: [], fields: {} });

    const backward = diffTables(next, served);
    expect(backward.rules).toEqual({ added: [], removed: added.sort(), changed: [], fields: {} });
    expect(backward.backends.changed).toEqual(v2.sort());
  });

  it("names a host another rule joins, and the rule", async () => {
    const served = await compiled(PORTS, 12);
    const next = await compiled(PORTS, 13);
    // Route 12 takes h12 (served by route 11 already) and h13 (new).
    const diff = diffTables(served, next);
    expect(diff.hosts).toEqual({
      added: ["h13.example"],
      removed: [],
      changed: ["h12.example"],
      fields: { "h12.example": ["HTTP + rule c1/gateway-conformance-infra/r12/rule/0"] },
    });
    expect(diffLines(diff)).toEqual(expect.arrayContaining(["  + host h13.example", "  ~ host h12.example"]));
  });

  it("names a rule whose match changed, and only that one", async () => {
    const served = await compiled(PORTS, 10);
    const next = structuredClone(served);
    const match = next.matches.find((m) => m.rule === 3)!;
    match.method = "POST";
    const diff = diffTables(served, { ...next, version: "f".repeat(20) });
    expect(diff.rules).toEqual({
      added: [],
      removed: [],
      changed: [served.rules[3]!.id],
      fields: { [served.rules[3]!.id]: ['matches[0].method: (none) → "POST"'] },
    });
    expect(diff.backends).toEqual({ added: [], removed: [], changed: [], fields: {} });
    expect(diff.hostsChanged).toBe(false);
  });

  it("lists everything as added when nothing is served, and nothing between a table and itself", async () => {
    const table = await compiled(PORTS, 10);
    const first = diffTables(null, table);
    expect(first.from).toBeUndefined();
    expect(first.rules.added).toEqual(table.rules.map((r) => r.id).sort());
    expect(first.backends.added).toEqual(Object.keys(table.backends).sort());
    expect(first.hostsChanged).toBe(true);
    expect(first.hosts.added).toContain("h1.example");
    expect(first.hosts.added).toContain("*.w0.example");
    expect(diffTables(table, structuredClone(table))).toEqual({
      from: table.version,
      to: table.version,
      hosts: { added: [], removed: [], changed: [], fields: {} },
      rules: { added: [], removed: [], changed: [], fields: {} },
      backends: { added: [], removed: [], changed: [], fields: {} },
      hostsChanged: false,
      clusters: [],
      endpoints: {},
      weights: {},
      settings: [],
    });
  });
});

/** One HTTPRoute for `hostnames` on a listener that takes any host, to one Service. */
async function oneRoute(hostnames: string[]): Promise<RouteTable> {
  const { table, diagnostics } = await compileYaml(edgeConfig("rename"), {
    c1: yamlDocs(
      gatewayAndRoute({
        namespace: "app",
        routeHostnames: hostnames,
        rules: "    - backendRefs: [{ name: web, port: 8080 }]",
      }),
      service("web", "app"),
      endpointSlice({ service: "web", name: "web-1", namespace: "app", port: 9101 }),
    ),
  });
  expect(diagnostics.filter((d) => d.severity === "error")).toEqual([]);
  return table;
}

describe("a host renamed", () => {
  it("is a host added and a host removed, though no rule or backend changed", async () => {
    const served = await oneRoute(["app.example.com"]);
    const next = await oneRoute(["app2.example.com"]);
    const diff = diffTables(served, next);
    expect(diff.rules).toEqual({ added: [], removed: [], changed: [], fields: {} });
    expect(diff.backends).toEqual({ added: [], removed: [], changed: [], fields: {} });
    expect(diff.hosts).toEqual({ added: ["app2.example.com"], removed: ["app.example.com"], changed: [], fields: {} });
    expect(diffLines(diff)).toEqual(["  + host app2.example.com", "  - host app.example.com"]);
  });

  it("refuses as a large drop whose diff names the host removed", async () => {
    const served = await oneRoute(["app.example.com"]);
    const next = await oneRoute(["app2.example.com"]);
    expect(largeDrop(served, next)).toMatch(/^this push would remove 0 of 1 served rule and 1 of 1 served host /);
    expect(diffLines(diffTables(served, next))).toContain("  - host app.example.com");
  });

  it("a second hostname added to a route is a host added, with nothing refused", async () => {
    const served = await oneRoute(["app.example.com"]);
    const next = await oneRoute(["app.example.com", "www.example.com"]);
    expect(diffTables(served, next).hosts).toEqual({ added: ["www.example.com"], removed: [], changed: [], fields: {} });
    expect(largeDrop(served, next)).toBeNull();
  });
});
