/**
 * A route with some invalid rules: the invalid ones are dropped and the rest served, with
 * PartiallyInvalid=True ("Dropped Rule ...") beside Accepted=True. A dropped rule whose matches are valid
 * keeps them, marked invalid, so the Worker answers its requests 500 instead of letting another rule serve
 * them without its filters. A route whose every rule is invalid is not accepted.
 */
import { describe, it } from "vitest";
import { compileYaml } from "../support/compile-fixture";
import { endpointSlice, gatewayAndRoute, service, yamlDocs } from "../support/manifests";

const EDGE = `
apiVersion: kedge.dev/v1alpha1
kind: EdgeConfig
spec: { gatewayClassName: kedge, clusters: [{ name: c1 }] }
`;

const BAD_REGEX = `    - matches: [{ path: { type: RegularExpression, value: "/bad/(?=x)" } }]
      backendRefs: [{ name: web, port: 8080 }]`;
const BAD_REWRITE = `    - matches: [{ path: { type: Exact, value: /exact } }]
      filters: [{ type: URLRewrite, urlRewrite: { path: { type: ReplacePrefixMatch, replacePrefixMatch: /x } } }]
      backendRefs: [{ name: web, port: 8080 }]`;
const GOOD = (path: string) => `    - matches: [{ path: { type: PathPrefix, value: ${path} } }]
      backendRefs: [{ name: web, port: 8080 }]`;

const compile = (rules: string[]) =>
  compileYaml(EDGE, {
    c1: yamlDocs(
      gatewayAndRoute({ namespace: "app", rules: rules.join("\n") }),
      service("web", "app"),
      endpointSlice({ service: "web", name: "web-1", namespace: "app", port: 9000 }),
    ),
  });

const parentConditions = (result: Awaited<ReturnType<typeof compile>>) =>
  result.statuses.find((s) => s.object.kind === "HTTPRoute")?.parents?.[0]?.conditions ?? [];

describe("a route with invalid rules", () => {
  it("drops only the invalid rules, serves the others under their own index, and says which were dropped", async ({ expect }) => {
    const result = await compile([GOOD("/first"), BAD_REGEX, GOOD("/third"), BAD_REWRITE]);
    // The unsafe regex cannot match anything; the bad rewrite's Exact /exact match stays, answering 500.
    expect(result.table.rules.map((r) => [r.id, r.invalid ?? null])).toEqual([
      ["c1/app/web/rule/0", null],
      ["c1/app/web/rule/2", null],
      ["c1/app/web/rule/3", expect.stringMatching(/^spec\.rules\[3\]\.filters\[0\]\.urlRewrite\.path\.type: ReplacePrefixMatch/)],
    ]);
    expect(result.table.rules[2]).toMatchObject({ backendRefs: [], filters: [] });
    expect(result.table.matches.filter((m) => m.rule === 2).map((m) => m.path)).toEqual([{ type: "Exact", value: "/exact" }]);
    const conditions = parentConditions(result);
    expect(conditions.find((c) => c.type === "Accepted")).toMatchObject({ status: "True", reason: "Accepted" });
    const partial = conditions.find((c) => c.type === "PartiallyInvalid");
    expect(partial).toMatchObject({ status: "True", reason: "UnsupportedValue" });
    expect(partial?.message).toMatch(
      /^Dropped Rule 1 \(its matches are not served\): spec\.rules\[1\]\.matches\[0\]\.path\.value: .*; Dropped Rule 3 \(its requests answer 500\): spec\.rules\[3\]/,
    );
    const errors = result.diagnostics.filter((d) => d.severity === "error");
    expect(errors.map((d) => d.field)).toEqual(["spec.rules[1].matches[0].path.value", "spec.rules[3].filters[0].urlRewrite.path.type"]);
    expect(errors.map((e) => e.message.replace(/^.*; /, ""))).toEqual([
      "this rule is dropped (its matches are not served), the route's other rules are served",
      "this rule is dropped (its requests answer 500), the route's other rules are served",
    ]);
  });

  it("is not accepted when every rule is invalid, and names each problem", async ({ expect }) => {
    const result = await compile([BAD_REGEX, BAD_REWRITE]);
    expect(result.table.rules).toEqual([]);
    const conditions = parentConditions(result);
    expect(conditions.find((c) => c.type === "Accepted")).toMatchObject({ status: "False", reason: "UnsupportedValue" });
    expect(conditions.find((c) => c.type === "PartiallyInvalid")).toBeUndefined();
    const errors = result.diagnostics.filter((d) => d.severity === "error");
    expect(errors).toHaveLength(2);
    for (const e of errors) expect(e.message).toMatch(/the route is not served$/);
  });

  it("sets no PartiallyInvalid on a route whose rules are all valid", async ({ expect }) => {
    const result = await compile([GOOD("/first"), GOOD("/second")]);
    expect(result.table.rules).toHaveLength(2);
    expect(parentConditions(result).map((c) => c.type)).toEqual(["Accepted", "ResolvedRefs"]);
  });
});
