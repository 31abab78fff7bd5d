/** `rules[].retry.attempts` as Gateway API v1.7 defines it: 0 turns retries off; left out, kedge's default of one. */
import { describe, it } from "vitest";
import { compileYaml } from "../support/compile-fixture";
import { gatewayAndRoute, service, yamlDocs } from "../support/manifests";

const EDGE = `
apiVersion: kedge.dev/v1alpha1
kind: EdgeConfig
spec: { gatewayClassName: kedge, clusters: [{ name: east }] }
`;

/** One rule per `retry` value, on paths /r0, /r1 ... */
async function compileRetries(...retries: string[]) {
  const rules = retries
    .map(
      (retry, i) =>
        `    - matches: [{ path: { type: PathPrefix, value: /r${i} } }]\n      retry: ${retry}\n      backendRefs: [{ name: a, port: 80 }]`,
    )
    .join("\n");
  return compileYaml(EDGE, { east: yamlDocs(gatewayAndRoute({ namespace: "app", rules }), service("a", "app", 80)) });
}

describe("retry.attempts (GEP-1731, Standard in Gateway API v1.7)", () => {
  it("0 is served as no retries (not refused); left out, one retry; the codes and backoff are kept", async ({ expect }) => {
    const { table, diagnostics } = await compileRetries(
      "{ codes: [503, 500], attempts: 0 }",
      "{ codes: [500] }",
      "{ attempts: 3, backoff: 10ms }",
    );
    expect(table.rules.map((r) => r.invalid)).toEqual([undefined, undefined, undefined]);
    expect(table.rules.map((r) => r.retry)).toEqual([
      { codes: [500, 503], attempts: 0, backoffMs: 25 },
      { codes: [500], attempts: 1, backoffMs: 25 },
      { codes: [], attempts: 3, backoffMs: 10 },
    ]);
    expect(diagnostics.filter((d) => d.object.kind === "HTTPRoute")).toEqual([]);
  });

  it("a negative count, or more than 10, drops the rule with the field named (its requests answer 500)", async ({ expect }) => {
    const { table, diagnostics } = await compileRetries("{ attempts: -1 }", "{ attempts: 11 }", "{ attempts: 10 }");
    expect(table.rules.map((r) => r.invalid !== undefined)).toEqual([true, true, false]);
    const refused = diagnostics.filter((d) => d.object.kind === "HTTPRoute" && d.severity === "error");
    expect(refused.map((d) => [d.field, d.reason])).toEqual([
      ["spec.rules[0].retry.attempts", "UnsupportedValue"],
      ["spec.rules[1].retry.attempts", "UnsupportedValue"],
    ]);
    expect(refused[0]!.message).toContain("attempts must be an integer 0-10 (0 turns retries off)");
  });
});
