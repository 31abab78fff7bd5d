/**
 * The table's version as the CLI hashes it (Node's SHA-256, fed the table's text a piece at a time as the compiler
 * writes it) and as the compiler does by default (Web Crypto, the text whole): the same version and the same
 * size, for a table whose text is many pieces long and not ASCII throughout.
 */
import { describe, it } from "vitest";
import { nodeSha256 } from "../../scripts/config/compile-loaded";
import { sha256Hex } from "../../src/table/canonical-json";
import { compileYaml, storedText } from "../support/compile-fixture";
import { edgeConfig, gatewayAndRoute } from "../support/manifests";

const EDGE = edgeConfig("t", "[{ name: east }]");

/** 1,000 routes, each setting a header whose value is 2-, 3- and 4-byte UTF-8 (an emoji is a surrogate pair). */
const routes = Array.from(
  { length: 1000 },
  (_, i) => `---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: { name: r${i}, namespace: shop }
spec:
  parentRefs: [{ name: gw }]
  rules:
    - matches: [{ path: { type: PathPrefix, value: /p${i} } }]
      filters: [{ type: RequestHeaderModifier, requestHeaderModifier: { set: [{ name: x-note, value: "ü中😀 ${i}" }] } }]
`,
).join("");

describe("the version hash in pieces", () => {
  it("is Web Crypto's SHA-256 of the whole text, and the size is its UTF-8 bytes", async ({ expect }) => {
    const clusters = { east: gatewayAndRoute({ namespace: "shop", rules: "    - {}" }) + routes };
    const inPieces = await compileYaml(EDGE, clusters, { digest: nodeSha256 });
    const whole = await compileYaml(EDGE, clusters);
    expect(inPieces.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
    const text = storedText(inPieces);
    expect(text).toContain("ü中😀 999");
    // Many pieces of about 64k characters each.
    expect(text.length).toBeGreaterThan(4 * 2 ** 16);
    expect(inPieces.table.version).toBe(whole.table.version);
    // The version hashes the table's text without the version, its last field.
    const body = text.replace(/,"version":"[0-9a-f]{20}"}$/, "}");
    expect(body).not.toBe(text);
    expect(inPieces.table.version).toBe((await sha256Hex(body)).slice(0, 20));
    expect(inPieces.bytes).toBe(Buffer.byteLength(text, "utf8"));
  });

  it("hashes the text as stored when cluster names are numbers (JavaScript lists such keys first)", async ({ expect }) => {
    const edge = edgeConfig("t", '[{ name: "9" }, { name: "10" }]');
    const clusters = {
      "9": gatewayAndRoute({ namespace: "shop", rules: "    - {}" }),
      "10": gatewayAndRoute({ namespace: "shop", rules: "    - {}" }),
    };
    const result = await compileYaml(edge, clusters, { digest: nodeSha256 });
    const text = storedText(result);
    expect(text).toContain('"clusters":{"9":');
    const body = text.replace(/,"version":"[0-9a-f]{20}"}$/, "}");
    expect(result.table.version).toBe((await sha256Hex(body)).slice(0, 20));
  });
});
