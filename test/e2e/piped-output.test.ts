/**
 * Output that arrives whole: a command's stdout read through a pipe (as `kedge ... -o json | jq` reads it) is
 * the whole document, also when it is far larger than a pipe's 64 KiB buffer. A 300-host config's reports.
 */
import { parse } from "yaml";
import { afterAll, beforeAll, describe, it } from "vitest";
import { edgeConfig } from "../support/manifests";
import { runScript, Workspace } from "./harness";

const ROUTES = 300;

describe("piped output arrives whole", () => {
  const ws = new Workspace();

  beforeAll(() => {
    const docs = [
      `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: { name: gw, namespace: default }
spec: { gatewayClassName: kedge, listeners: [{ name: http, protocol: HTTP, port: 80 }] }
`,
      `apiVersion: v1
kind: Service
metadata: { name: web, namespace: default }
spec: { ports: [{ name: http, port: 80 }] }
`,
      ...Array.from(
        { length: ROUTES },
        (_, i) => `apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: { name: r${i}, namespace: default }
spec:
  parentRefs: [{ name: gw }]
  hostnames: [h${i}.example.com]
  rules: [{ backendRefs: [{ name: web, port: 80 }] }]
`,
      ),
    ];
    ws.write({ "kedge.yaml": edgeConfig("piped"), "clusters/c1/app.yaml": docs.join("---\n") });
  });

  afterAll(() => ws.remove());

  it.for([
    ["validate -o json", ["validate", "--config"], "json"],
    ["validate -o yaml", ["validate", "--config"], "yaml"],
    ["sync --dry-run -o json", ["sync", "--dry-run", "--persist-to", "STATE", "--config"], "json"],
    ["diff -o json", ["diff", "--persist-to", "STATE", "--config"], "json"],
  ] as const)("%s", async ([, args, format], { expect }) => {
    const argv = [...args.map((a) => (a === "STATE" ? ws.state : a)), ws.config, "-o", format];
    const run = await runScript("scripts/cli/main.ts", argv);
    // Well past the 64 KiB a pipe holds, so an exit before the pipe drained would cut it.
    expect(run.stdout.length).toBeGreaterThan(96 * 1024);
    // Written out in full, as kubectl writes YAML: no anchors or aliases for values the report shares.
    if (format === "yaml") expect(run.stdout).not.toMatch(/[&*]a\d+\b/);
    const data = (format === "json" ? JSON.parse(run.stdout) : parse(run.stdout)) as { statuses: unknown[] };
    expect(data.statuses).toHaveLength(ROUTES + 1);
  });
});
