/** A config whose Gateways are all of another class serves nothing: said as a warning, not read as valid. */
import { describe, it } from "vitest";
import { compileYaml } from "../support/compile-fixture";
import { gatewayAndRoute, service, yamlDocs } from "../support/manifests";

const edge = (className: string) => `apiVersion: kedge.dev/v1alpha1
kind: EdgeConfig
metadata: { name: t }
spec: { gatewayClassName: ${className}, clusters: [{ name: c1 }, { name: c2 }] }
`;

const app = yamlDocs(gatewayAndRoute({ namespace: "shop", rules: "    - backendRefs: [{ name: web, port: 80 }]" }), service("web", "shop"));

describe("a config that serves nothing", () => {
  it("warns once, on a Gateway of the other class, when no Gateway is of kedge.yaml's class", async ({ expect }) => {
    const { table, diagnostics } = await compileYaml(edge("edge"), { c1: app, c2: app });
    expect(table.rules).toHaveLength(0);
    const warnings = diagnostics.filter((d) => d.reason === "NothingServed");
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ severity: "warning", field: "spec.gatewayClassName", object: { cluster: "c1", kind: "Gateway" } });
    expect(warnings[0]!.message).toContain("no Gateway of class edge (kedge.yaml spec.gatewayClassName) in any cluster");
    expect(warnings[0]!.message).toContain("this Gateway is of class kedge");
  });

  it("says nothing when a Gateway is of kedge.yaml's class", async ({ expect }) => {
    const { table, diagnostics } = await compileYaml(edge("kedge"), { c1: app });
    expect(table.rules).toHaveLength(1);
    expect(diagnostics.filter((d) => d.reason === "NothingServed")).toEqual([]);
  });
});
