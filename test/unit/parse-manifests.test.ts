import { describe, it } from "vitest";
import { ManifestSyntaxError, parseManifestFile } from "../../src/gateway-api/parse-manifests";
import { aliasBomb } from "../support/manifests";

describe("parseManifestFile", () => {
  it("reads multi-document YAML, defaulting the namespace and keeping each document's line", ({ expect }) => {
    const parsed = parseManifestFile(
      "us-east",
      "a.yaml",
      "apiVersion: v1\nkind: Service\nmetadata: { name: a }\n---\n---\napiVersion: v1\nkind: Service\nmetadata: { name: b, namespace: x }\n",
    );
    expect(parsed.manifests.map((m) => [m.kind, m.metadata.namespace, m.metadata.name, m.line, m.cluster])).toEqual([
      ["Service", "default", "a", 1, "us-east"],
      ["Service", "x", "b", 6, "us-east"],
    ]);
  });

  it("unwraps a kind: List as kubectl get -o yaml prints it, each item at its own line", ({ expect }) => {
    const text =
      "apiVersion: v1\nkind: List\nitems:\n  - apiVersion: v1\n    kind: Service\n    metadata: { name: a }\n  - apiVersion: v1\n    kind: Service\n    metadata: { name: b }\n";
    expect(parseManifestFile("c", "list.yaml", text).manifests.map((m) => [m.metadata.name, m.line])).toEqual([
      ["a", 4],
      ["b", 7],
    ]);
  });

  it("reads JSON", ({ expect }) => {
    const parsed = parseManifestFile(
      "c",
      "x.json",
      JSON.stringify({ apiVersion: "v1", kind: "Service", metadata: { name: "j", namespace: "n" }, spec: { ports: [] } }),
    );
    expect(parsed.manifests[0]?.metadata).toMatchObject({ name: "j", namespace: "n" });
  });

  it("reads a JSON List (kubectl get -o json) with each item at its own line, strings with braces, quotes and backslashes included", ({
    expect,
  }) => {
    const list = {
      apiVersion: "v1",
      kind: "List",
      items: [
        {
          apiVersion: "v1",
          kind: "Service",
          metadata: { name: "a", annotations: { note: 'has "{quotes" and [braces', dir: "C:\\[x\\", items: "[{" } },
        },
        { apiVersion: "v1", kind: "Service", metadata: { name: "b" }, spec: { ports: [{ port: 80 }] } },
      ],
    };
    const text = JSON.stringify(list, null, 2);
    // Each item opens with a line "    {" (1-based line numbers).
    const itemLines = text.split("\n").flatMap((l, i) => (l === "    {" ? [i + 1] : []));
    const parsed = parseManifestFile("c", "list.json", text);
    expect(parsed.manifests.map((m) => [m.metadata.name, m.line])).toEqual([
      ["a", itemLines[0]],
      ["b", itemLines[1]],
    ]);
  });

  it("reports a JSON syntax error with file, line and column", ({ expect }) => {
    expect(() => parseManifestFile("c", "bad.json", '{\n  "apiVersion": "v1",\n  "kind": "Service",,\n}')).toThrow(/bad\.json:3:\d+: /);
  });

  it("throws a ManifestSyntaxError naming file, line and column", ({ expect }) => {
    const attempt = () => parseManifestFile("c", "broken.yaml", "apiVersion: v1\nkind: Service\nmetadata:\n  name: [unclosed\n");
    expect(attempt).toThrow(ManifestSyntaxError);
    try {
      attempt();
    } catch (e) {
      expect((e as ManifestSyntaxError).file).toBe("broken.yaml");
      expect((e as ManifestSyntaxError).line).toBeGreaterThanOrEqual(4);
      expect((e as Error).message).toMatch(/^broken\.yaml:\d+:\d+: /);
    }
  });

  it("refuses a document whose aliases expand too far (billion laughs) with a ManifestSyntaxError, not a crash", ({ expect }) => {
    const text = `apiVersion: v1\nkind: ConfigMap\nmetadata: { name: bomb }\ndata:\n${aliasBomb("  ")}`;
    expect(() => parseManifestFile("c", "bomb.yaml", text)).toThrow(ManifestSyntaxError);
    expect(() => parseManifestFile("c", "bomb.yaml", text)).toThrow(/^bomb\.yaml:1:1: .*alias/i);
  });

  it("skips documents without apiVersion, kind or name, with a reason", ({ expect }) => {
    const parsed = parseManifestFile(
      "c",
      "s.yaml",
      "- just a list\n---\nkind: Service\n---\napiVersion: v1\nkind: Service\nmetadata: {}\n---\napiVersion: v1\nkind: Service\nmetadata: { name: 123 }\n",
    );
    expect(parsed.manifests).toEqual([]);
    expect(parsed.skipped.map((s) => s.message)).toEqual([
      "document is not a YAML mapping",
      "object has no apiVersion or kind",
      "Service has no metadata.name",
      "Service metadata.name must be a string, not 123",
    ]);
  });
});
