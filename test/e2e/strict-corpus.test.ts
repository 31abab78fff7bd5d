/**
 * `sync --strict` refuses what would serve something other than what was written: here Envoy Gateway's
 * quickstart with its SecurityPolicy (basic auth) and BackendTrafficPolicy, which the edge does not
 * enforce. Acknowledging them in kedge.yaml is the user's explicit choice, and then it pushes.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, it } from "vitest";
import { ROOT, Workspace } from "./harness";

const edge = (acknowledged = "") => `apiVersion: kedge.dev/v1alpha1
kind: EdgeConfig
metadata: { name: corpus }
spec:
  gatewayClassName: eg
  clusters: [{ name: c1 }]
${acknowledged}`;

describe("sync --strict on Envoy Gateway's quickstart", () => {
  const ws = new Workspace();
  afterAll(() => ws.remove());

  it("exits 1 and writes nothing while a policy on a served route is not enforced; pushes once acknowledged", async ({ expect }) => {
    ws.write({
      "kedge.yaml": edge(),
      "clusters/c1/quickstart.yaml": readFileSync(join(ROOT, "test/fixtures/corpus/envoy-gateway-quickstart.yaml"), "utf8"),
    });
    const refused = await ws.sync("--strict");
    expect(refused.code).toBe(1);
    expect(refused.stdout).toMatch(/SecurityPolicy default\/basic-auth-example/);
    expect(refused.stdout).toContain("not enforced by kedge");
    expect(refused.stderr).toContain("--strict: 2 errors above; nothing written");

    ws.write({
      "kedge.yaml": edge(`  acknowledgedPolicies:
    - { group: gateway.envoyproxy.io, kind: SecurityPolicy }
    - { group: gateway.envoyproxy.io, kind: BackendTrafficPolicy, namespace: default, name: policy-for-gateway }
`),
    });
    const pushed = await ws.sync("--strict");
    expect(pushed.code, pushed.stderr).toBe(0);
    expect(pushed.stdout).toContain("acknowledged in kedge.yaml spec.acknowledgedPolicies");
  });
});
