/**
 * The documented interface: after `npm run sync -- --local --persist-to DIR`, `wrangler dev --persist-to DIR`
 * serves that table. Runs the real wrangler dev (bundling, workerd) against a real origin.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import { afterAll, beforeAll, describe, it } from "vitest";
import type { Origin } from "../../scripts/dev/origin-server";
import { freePort, getWithHost, ROOT, startOrigins, Workspace } from "./harness";

describe("wrangler dev --persist-to", () => {
  const ws = new Workspace();
  let origin: Origin;
  let dev: ChildProcess | undefined;
  let port: number;

  beforeAll(async () => {
    origin = (await startOrigins(["only"])).only!;
    ws.write({
      "kedge.yaml":
        "apiVersion: kedge.dev/v1alpha1\nkind: EdgeConfig\nmetadata: { name: kedge }\nspec:\n  gatewayClassName: kedge\n  clusters: [{ name: c1 }]\n",
      "clusters/c1/app.yaml": `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: { name: gw, namespace: app }
spec: { gatewayClassName: kedge, listeners: [{ name: http, protocol: HTTP, port: 80, hostname: app.example.com }] }
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: { name: app, namespace: app }
spec: { parentRefs: [{ name: gw }], rules: [{ backendRefs: [{ name: app, port: 80 }] }] }
---
apiVersion: v1
kind: Service
metadata: { name: app, namespace: app }
spec: { ports: [{ port: 80 }] }
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata: { name: app-1, namespace: app, labels: { kubernetes.io/service-name: app } }
ports: [{ port: ${origin.port} }]
endpoints: [{ addresses: ["127.0.0.1"] }]
`,
    });
    const synced = await ws.sync("--local");
    if (synced.code !== 0) throw new Error(synced.stderr + synced.stdout);
    port = await freePort();
    dev = spawn(
      process.execPath,
      [
        join(ROOT, "node_modules", "wrangler", "bin", "wrangler.js"),
        "dev",
        "--persist-to",
        ws.state,
        "--port",
        String(port),
        "--ip",
        "127.0.0.1",
      ],
      {
        cwd: ROOT,
        env: { ...process.env, WRANGLER_SEND_METRICS: "false", CI: "true" },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    await new Promise<void>((resolveReady, reject) => {
      let output = "";
      const timer = setTimeout(() => reject(new Error(`wrangler dev did not get ready:\n${output}`)), 50_000);
      const watch = (d: Buffer) => {
        output += d.toString();
        if (/Ready on/.test(output)) {
          clearTimeout(timer);
          resolveReady();
        }
      };
      dev?.stdout?.on("data", watch);
      dev?.stderr?.on("data", watch);
    });
  });

  afterAll(async () => {
    if (dev && dev.exitCode === null) {
      const exited = new Promise((r) => dev?.once("exit", r));
      dev.kill("SIGINT");
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
      if (dev.exitCode === null) dev.kill("SIGKILL");
    }
    await origin?.close();
    ws.remove();
  });

  it("serves the table the sync wrote, on the hostname the route names", async ({ expect }) => {
    const hit = await getWithHost(port, "app.example.com", "/hello");
    expect(hit.status).toBe(200);
    expect(JSON.parse(hit.body)).toMatchObject({ endpoint: "only", request: { path: "/hello" } });
    expect((await getWithHost(port, "other.example.com", "/")).status).toBe(404);
  });
});
