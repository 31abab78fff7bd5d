/**
 * Golden compile tests (like Envoy Gateway's testdata): each <name>.in.yaml under test/fixtures/compile/
 * compiles to <name>.out.yaml beside it: diagnostics, statuses and the table, by id. An input starts with
 * its EdgeConfig, or holds only resources and compiles on its folder's base.yaml (conformance/: the
 * Gateway API conformance infrastructure, under each conformance case's manifests). A resource goes to
 * the clusters its `kedge.dev/test-cluster` annotation lists (comma-separated, or * for every cluster),
 * else to the first cluster.
 * `vitest -u` rewrites the outputs; a change in compiled output or status is then a diff to review.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, it } from "vitest";
import { parseAllDocuments, stringify } from "yaml";
import { type CompileOptions, compileRouteTable, type CompileResult } from "../../src/compile/compile-route-table";
import type { EdgeConfig } from "../../src/compile/input/edge-config";
import { type Manifest, SPENT } from "../../src/gateway-api/manifest";
import { parentRefText } from "../../src/compile/status/diagnostics";
import { parseEdgeConfig } from "../../src/compile/input/edge-config";
import { parseManifestFile } from "../../src/gateway-api/parse-manifests";
import { storedText } from "../support/compile-fixture";
import { canonicalJson, sha256Hex } from "../../src/table/canonical-json";

const DIR = join(import.meta.dirname, "..", "fixtures", "compile");

const isEdgeConfig = (doc: Record<string, unknown> | undefined) => doc?.kind === "EdgeConfig";

/** An input's documents, on its folder's base.yaml when it brings no EdgeConfig of its own. */
function inputDocuments(file: string): Record<string, unknown>[] {
  const read = (path: string) => parseAllDocuments(readFileSync(path, "utf8")).map((d) => d.toJS() as Record<string, unknown>);
  const docs = read(file);
  return isEdgeConfig(docs[0]) ? docs : [...read(join(dirname(file), "base.yaml")), ...docs];
}

async function compileFixture(file: string, options: CompileOptions = {}): Promise<CompileResult> {
  return compileRouteTable(...fixtureInput(file), options);
}

function fixtureInput(file: string): [EdgeConfig, Manifest[]] {
  const [first, ...resources] = inputDocuments(file);
  const edge = parseEdgeConfig(first, "kedge.yaml");
  const manifests = resources.flatMap((doc) => {
    const annotations = (doc.metadata as { annotations?: Record<string, string> } | undefined)?.annotations;
    const listed = annotations?.["kedge.dev/test-cluster"];
    const clusters = listed === "*" ? edge.clusters.map((c) => c.name) : (listed?.split(",") ?? [edge.clusters[0]?.name ?? "c1"]);
    return clusters.flatMap((cluster) => parseManifestFile(cluster, "fixture.yaml", stringify(doc)).manifests);
  });
  return [edge, manifests];
}

/** Every input under the fixtures folder, by its path there. */
const INPUTS = readdirSync(DIR, { recursive: true, encoding: "utf8" })
  .filter((f) => f.endsWith(".in.yaml"))
  .sort();

function render({ table, diagnostics, statuses }: CompileResult): string {
  const matchId = (i: number) => table.matches[i]?.id ?? `#${i}`;
  const conditions = (list: { type: string; status: string; reason: string }[]) =>
    list.map((c) => `${c.type}=${c.status}/${c.reason}`).join(" ");
  return stringify(
    {
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
      // As the CLI prints: a shared object (a frozen empty list) written out each time, not as a YAML alias.
    },
    { aliasDuplicateObjects: false },
  );
}

describe("compile golden fixtures", () => {
  for (const file of INPUTS) {
    it(file.replace(".in.yaml", ""), async ({ expect }) => {
      const result = await compileFixture(join(DIR, file));
      await expect(render(result)).toMatchFileSnapshot(join(DIR, file.replace(".in.yaml", ".out.yaml")));
      // The text stored is the table's canonical JSON; its size and version are known without it: the version
      // hashes the table's text without the version.
      const text = storedText(result);
      expect(text).toBe(canonicalJson(result.table));
      expect(result.bytes).toBe(new TextEncoder().encode(text).length);
      const body = canonicalJson({ ...result.table, version: undefined });
      expect(result.table.version).toBe((await sha256Hex(body)).slice(0, 20));
      // A one-shot command's compile (`once`) lets each route's spec go as it compiles, and says all the same.
      const [edge, manifests] = fixtureInput(join(DIR, file));
      const once = await compileRouteTable(edge, manifests, { once: true });
      expect(storedText(once)).toBe(text);
      expect(once.diagnostics).toEqual(result.diagnostics);
      expect(once.statuses).toEqual(result.statuses);
      // Every route that attached somewhere was let go, its spec in both places, and says so when read; nothing
      // but routes was.
      const key = (o: { cluster: string; kind: string; namespace: string; name: string }) =>
        `${o.cluster}/${o.kind}/${o.namespace}/${o.name}`;
      const spent = manifests.filter((m) => m.spec === SPENT);
      const attached = once.statuses.filter(
        (s) => s.object.kind === "HTTPRoute" && s.parents?.some((p) => p.conditions[0]?.status === "True"),
      );
      const spentKeys = new Set(spent.map((m) => key({ ...m, namespace: m.metadata.namespace, name: m.metadata.name })));
      for (const s of attached) expect(spentKeys, key(s.object)).toContain(key(s.object));
      for (const m of spent) {
        expect(m.kind).toBe("HTTPRoute");
        expect(m.raw.spec).toBe(SPENT);
        expect(() => m.spec.rules, `${m.metadata.name}`).toThrow(/kedge bug: a spec was read \(rules\)/);
        expect(() => "rules" in m.spec).toThrow(/kedge bug/);
      }
    });
  }

  it("is deterministic: the same input gives the same version", async ({ expect }) => {
    const file = join(DIR, "multi-cluster.in.yaml");
    const [a, b] = await Promise.all([compileFixture(file), compileFixture(file)]);
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
});
