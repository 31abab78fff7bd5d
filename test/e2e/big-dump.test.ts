/**
 * A real cluster's dump through `kedge validate`: thousands of Services and EndpointSlices as `kubectl get -o
 * yaml` prints them, a few routed. What is routed is checked (a bad field of a routed Service is an error at its
 * exact file:line:col), what nothing reaches is left alone, and the JSON report arrives whole through a pipe.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, it } from "vitest";
import { clusterDump, routesFor } from "../../scripts/tools/bench/cluster-dump";
import { runScript, Workspace } from "./harness";

const SERVICES = 3000;

describe("kedge validate of a big cluster dump", () => {
  const ws = new Workspace();
  let dump: string;

  beforeAll(() => {
    const options = { services: SERVICES, routed: 20 };
    // svc-3 is routed: its second port's number becomes a word. svc-2999 is not routed: the same mistake there is not ours to check.
    dump = clusterDump(options)
      .replace(/(name: svc-3\n[\s\S]*?- name: metrics\n\s+port:) 9090/, "$1 ninety")
      .replace(/(name: svc-2999\n[\s\S]*?- name: metrics\n\s+port:) 9090/, "$1 ninety");
    ws.write({
      "kedge.yaml": `apiVersion: kedge.dev/v1alpha1
kind: EdgeConfig
metadata: { name: dump }
spec: { gatewayClassName: kedge, clusters: [{ name: big }] }
`,
      "clusters/big/dump.yaml": dump,
      "clusters/big/routes.yaml": routesFor(options),
    });
  });

  afterAll(() => ws.remove());

  it("checks the routed objects, with exact positions, and leaves the rest alone", async ({ expect }) => {
    const run = await runScript("scripts/cli/main.ts", ["validate", "--config", ws.config, "-o", "json"]);
    expect(run.code).toBe(1);
    const data = JSON.parse(run.stdout) as {
      table: { rules: number; backends: number };
      diagnostics: { severity: string; object: { name: string; file: string }; field: string; position?: { line: number; col: number } }[];
    };
    expect(data.table).toMatchObject({ rules: 20, backends: 19 });
    const errors = data.diagnostics.filter((d) => d.severity === "error");
    // The Service is refused, as the API server would refuse it, and the route that sends to it says so.
    expect(errors.map((d) => [d.object.name, d.field])).toEqual([
      ["svc-3", "spec.ports[1].port"],
      ["svc-3", "spec.rules[0].backendRefs[0].name"],
    ]);
    // The position is the field's own, in the 10 MB file: its line holds `port: ninety`.
    const { line, col } = errors[0]!.position!;
    const text = readFileSync(join(ws.config, "clusters/big/dump.yaml"), "utf8").split("\n")[line - 1]!;
    expect(text.slice(col - 1)).toBe("port: ninety");
    expect(errors[0]!.object.file).toMatch(/clusters\/big\/dump\.yaml$/);
  });

  it("reads the same dump as JSON at JSON.parse's speed, with the same verdict", async ({ expect }) => {
    const json = clusterDump({ services: SERVICES, routed: 20, format: "json" });
    ws.write({ "clusters/big/dump.yaml": "", "clusters/big/dump.json": json });
    const run = await runScript("scripts/cli/main.ts", ["validate", "--config", ws.config, "-o", "json"]);
    expect(run.code).toBe(0);
    expect((JSON.parse(run.stdout) as { table: { rules: number } }).table.rules).toBe(20);
  });
});
