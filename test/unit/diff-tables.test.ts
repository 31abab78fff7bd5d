/**
 * The --dry-run diff: rules and backends added, removed and changed between the served table and the new
 * one, whichever side is missing, and nothing at all between a table and itself.
 */
import { describe, expect, it } from "vitest";
import { diffTables } from "../../scripts/sync/diff-tables";
import type { RouteTable } from "../../src/table/route-table";
import { compileYaml } from "../support/compile-fixture";
import { EDGE_YAML } from "../support/conformance-infra";
import { manyHostsYaml } from "../support/many-hosts";

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
    // Field by field: the endpoint's port moved.
    expect(forward.backends.fields[v2[0]!]).toEqual([
      expect.stringMatching(/^endpoints\[0\]\.(id|port): /),
      expect.stringMatching(/^endpoints\[0\]\.(id|port): /),
    ]);
    expect(forward.hostsChanged).toBe(true);

    const backward = diffTables(next, served);
    expect(backward.rules).toEqual({ added: [], removed: added.sort(), changed: [], fields: {} });
    expect(backward.backends.changed).toEqual(v2.sort());
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
    expect(diffTables(table, structuredClone(table))).toEqual({
      from: table.version,
      to: table.version,
      rules: { added: [], removed: [], changed: [], fields: {} },
      backends: { added: [], removed: [], changed: [], fields: {} },
      hostsChanged: false,
    });
  });
});
