/**
 * Golden compile tests: each test/fixtures/compile/<name>.in.yaml (an EdgeConfig, then resources; a
 * resource's cluster is its `kedge.dev/test-cluster` annotation, else the first cluster) compiles to
 * <name>.out.yaml: diagnostics, statuses and the table, by id. `vitest -u` rewrites the outputs.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "vitest";
import { parseAllDocuments, stringify } from "yaml";
import { compileRouteTable, type CompileResult } from "../../src/compile/compile-route-table";
import { parentRefText } from "../../src/compile/status/diagnostics";
import { parseEdgeConfig } from "../../src/compile/input/edge-config";
import { parseManifestFile } from "../../src/gateway-api/parse-manifests";
import { canonicalJson, canonicalJsonWithLastKey } from "../../src/table/canonical-json";

const DIR = join(import.meta.dirname, "..", "fixtures", "compile");

async function compileFixture(text: string): Promise<CompileResult> {
  const docs = parseAllDocuments(text).map((d) => d.toJS() as Record<string, unknown>);
  const edge = parseEdgeConfig(docs[0], "kedge.yaml");
  const manifests = docs.slice(1).flatMap((doc) => {
    const annotations = (doc.metadata as { annotations?: Record<string, string> } | undefined)?.annotations;
    const cluster = annotations?.["kedge.dev/test-cluster"] ?? edge.clusters[0]?.name ?? "c1";
    return parseManifestFile(cluster, "fixture.yaml", stringify(doc)).manifests;
  });
  return compileRouteTable(edge, manifests);
}

function render({ table, diagnostics, statuses }: CompileResult): string {
  const matchId = (i: number) => table.matches[i]?.id ?? `#${i}`;
  const conditions = (list: { type: string; status: string; reason: string }[]) =>
    list.map((c) => `${c.type}=${c.status}/${c.reason}`).join(" ");
  return stringify({
    diagnostics: diagnostics.map(
      (d) =>
        `${d.severity} ${d.object.cluster} ${d.object.kind} ${d.object.namespace}/${d.object.name}${d.field ? ` ${d.field}` : ""}: ${d.reason}: ${d.message}`,
    ),
    statuses: statuses.map((s) => ({
      object: `${s.object.cluster} ${s.object.kind} ${s.object.namespace}/${s.object.name}`,
      ...(s.conditions.length ? { conditions: conditions(s.conditions) } : {}),
      ...(s.listeners ? { listeners: s.listeners.map((l) => `${l.name} attached=${l.attachedRoutes} ${conditions(l.conditions)}`) } : {}),
      ...(s.parents ? { parents: s.parents.map((p) => `${parentRefText(p.parentRef)} ${conditions(p.conditions)}`) } : {}),
      ...(s.aggregate ? { aggregate: s.aggregate.clusters.join(", ") } : {}),
    })),
    table: {
      listeners: table.listeners.map((l) => `${l.id} ${l.protocol}:${l.port} ${l.hostname ?? "*"}`),
      hosts: Object.fromEntries(
        Object.entries(table.hosts).map(([protocol, index]) => [
          protocol,
          {
            exact: Object.fromEntries(Object.entries(index.exact).map(([h, list]) => [h, list.map(matchId)])),
            wildcard: Object.fromEntries(Object.entries(index.wildcard).map(([h, list]) => [`*.${h}`, list.map(matchId)])),
            any: index.any.map(matchId),
          },
        ]),
      ),
      rules: Object.fromEntries(
        table.rules.map((r) => [
          r.id,
          {
            backendRefs: r.backendRefs.map(
              (b) =>
                `${b.backend ?? `invalid(${b.invalid?.reason})`} weight=${b.weight}${b.filters.length ? ` filters=${b.filters.map((f) => f.type).join(",")}` : ""}`,
            ),
            ...(r.filters.length ? { filters: r.filters } : {}),
            ...(r.timeouts ? { timeouts: r.timeouts } : {}),
            ...(r.session ? { session: `${r.session.type} ${r.session.name} scope=${r.session.scope}` } : {}),
          },
        ]),
      ),
      backends: Object.fromEntries(
        Object.values(table.backends).map((b) => [
          b.id,
          b.endpoints.map(
            (e) =>
              `${e.id} ${e.scheme} w=${e.weight}${e.ready ? " ready" : ""}${e.serving ? " serving" : ""}${e.terminating ? " terminating" : ""}`,
          ),
        ]),
      ),
    },
  });
}

describe("compile golden fixtures", () => {
  for (const file of readdirSync(DIR)
    .filter((f) => f.endsWith(".in.yaml"))
    .sort()) {
    it(file.replace(".in.yaml", ""), async ({ expect }) => {
      const result = await compileFixture(readFileSync(join(DIR, file), "utf8"));
      await expect(render(result)).toMatchFileSnapshot(join(DIR, file.replace(".in.yaml", ".out.yaml")));
      // The text stored is the table's canonical JSON, though the compiler serialises the table only once.
      expect(result.text).toBe(canonicalJson(result.table));
    });
  }

  it("is deterministic: the same input gives the same version", async ({ expect }) => {
    const text = readFileSync(join(DIR, "multi-cluster.in.yaml"), "utf8");
    const [a, b] = await Promise.all([compileFixture(text), compileFixture(text)]);
    expect(a.table.version).toBe(b.table.version);
    expect(a.table.version).toMatch(/^[0-9a-f]{20}$/);
  });

  it("writes object keys in sorted order whatever order they were set in, for small and large objects", ({ expect }) => {
    for (const size of [2, 5, 12, 13, 40]) {
      const names = Array.from({ length: size }, (_, i) => `k${String.fromCharCode(97 + (i % 26))}${i}`);
      const shuffled = names.map((_, i) => names[(i * 7 + 3) % size]!).filter((n, i, all) => all.indexOf(n) === i);
      const missing = names.filter((n) => !shuffled.includes(n));
      const forward = Object.fromEntries(names.map((n) => [n, { z: 1, a: [n] }]));
      const mixed = Object.fromEntries([...shuffled, ...missing].reverse().map((n) => [n, { a: [n], z: 1 }]));
      const text = canonicalJson(forward);
      expect(canonicalJson(mixed), `size ${size}`).toBe(text);
      expect(Object.keys(JSON.parse(text) as object), `size ${size}`).toEqual([...names].sort());
    }
  });

  it("appends a last key to canonical JSON only when that key sorts after all the others", ({ expect }) => {
    const value = { b: [1, { d: 2, c: undefined }], a: "x" };
    expect(canonicalJsonWithLastKey(canonicalJson(value), value, "version", { z: 1, y: 2 })).toBe(
      canonicalJson({ ...value, version: { z: 1, y: 2 } }),
    );
    expect(canonicalJsonWithLastKey("{}", {}, "version", "v")).toBe('{"version":"v"}');
    expect(() => canonicalJsonWithLastKey(canonicalJson(value), value, "a0", 1)).toThrow(/"b" does not sort before "a0"/);
  });
});
