/**
 * The fast reader (JSON.parse, js-yaml and a line pass) reads what the `yaml` document model reads: the same
 * objects, each at the same line, and every field at the same line and column when a diagnostic asks, in
 * multi-document files, `kind: List` dumps as kubectl prints them (YAML and JSON) and indented lists.
 */
import { describe, it } from "vitest";
import { stringify } from "yaml";
import { parseManifestFile } from "../../src/gateway-api/parse-manifests";
import { clusterDump } from "../../scripts/tools/bench/cluster-dump";

const FIELDS = [
  ["metadata", "name"],
  ["spec", "ports", 1, "name"],
  ["endpoints", 2, "addresses", 0],
  ["metadata", "labels", "app"],
  ["kind"],
];

/** Every object's kind, name and line, and where each of FIELDS is (when the object has it). */
function read(file: string, text: string, documentModel: boolean) {
  return parseManifestFile("c", file, text, { documentModel }).manifests.map((m) => ({
    name: `${m.kind}/${m.metadata.namespace}/${m.metadata.name}`,
    line: m.line,
    positions: FIELDS.map((f) => m.locate?.at(f) ?? null),
  }));
}

const MULTI_DOC = `# a leading comment
apiVersion: v1
kind: Service
metadata: { name: a, labels: { app: a } }
spec:
  ports: [{ name: http, port: 80 }, { name: metrics, port: 9090 }]
---
---
# between documents
apiVersion: v1
kind: Service
metadata:
  name: b
  namespace: x
spec:
  ports:
    - name: http
      port: 80
    - name: admin
      port: 81
...
---
apiVersion: v1
items:
  - apiVersion: v1
    kind: Service
    metadata:
      name: c
    spec:
      ports: [{ name: a, port: 1 }, { name: b, port: 2 }]
  # a comment at the items' indentation
  - apiVersion: v1
    kind: Service
    metadata: { name: d }
kind: List
`;

describe("the fast reader", () => {
  it("reads multi-document YAML as the document model does, lines and field positions included", ({ expect }) => {
    const fast = read("m.yaml", MULTI_DOC, false);
    expect(fast.map((o) => o.name)).toEqual(["Service/default/a", "Service/x/b", "Service/default/c", "Service/default/d"]);
    expect(fast).toEqual(read("m.yaml", MULTI_DOC, true));
  });

  it("reads a kubectl dump (YAML and JSON) as the document model does, each item's fields found in the item's own text", ({ expect }) => {
    const options = { services: 12, routed: 0, endpoints: 3 };
    for (const [file, text] of [
      ["dump.yaml", clusterDump(options)],
      ["dump.json", clusterDump({ ...options, format: "json" })],
    ] as const) {
      const fast = read(file, text, false);
      expect(fast).toHaveLength(24);
      expect(fast, file).toEqual(read(file, text, true));
      expect(fast[13]!.positions[2], file).not.toBeNull();
    }
  });

  it("leaves to the document model what the line pass cannot lay out (aliases, flow-style lists), with the same result", ({ expect }) => {
    const aliased = `apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: { name: a, labels: &l { app: a } }\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: { name: b, labels: *l }\n`;
    const flow = `apiVersion: v1\nkind: List\nitems: [{ apiVersion: v1, kind: Service, metadata: { name: a } },\n  { apiVersion: v1, kind: Service, metadata: { name: b } }]\n`;
    for (const text of [aliased, flow]) expect(read("x.yaml", text, false)).toEqual(read("x.yaml", text, true));
    expect(read("f.yaml", flow, false).map((o) => o.line)).toEqual([3, 4]);
  });

  it("reads YAML the way the core schema does: timestamps and yes/no stay strings", ({ expect }) => {
    const text = stringify({
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: "t", creationTimestamp: "2026-01-01T00:00:00Z" },
    }).replace('"2026-01-01T00:00:00Z"', "2026-01-01T00:00:00Z");
    const [fast] = parseManifestFile("c", "t.yaml", text).manifests;
    expect(fast?.metadata.creationTimestamp).toBe("2026-01-01T00:00:00Z");
  });
});
