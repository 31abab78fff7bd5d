/**
 * Clusters read through the Kubernetes API (kedge.yaml `kubeContext`): `sync` with a kubeconfig whose
 * contexts point at stand-in API servers (test/support/kube-api-stand-in.ts, checked once by hand with the
 * real kubectl). A cluster that refuses the listing, or cannot be reached, stops the sync with its name and
 * the reason, and nothing is written. `kedge dev` reads them as `kedge sync --local` does and serves their
 * routes.
 */
import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, it } from "vitest";
import type { EchoResponse } from "../../scripts/dev/origin-server";
import { kubeconfigFor, type StandIn, type StandInResource, startStandIn } from "../support/kube-api-stand-in";
import { httpService, kedgeClass, loopbackSlice, resource } from "../support/stand-in-resources";
import { freePort, getWithHost, ROOT, RUN_BUNDLED, runScript, Workspace } from "./harness";

const TOKEN = "stand-in-token";
const GW = "gateway.networking.k8s.io";

function clusterObjects(cluster: string, port: number): StandInResource[] {
  return [
    resource("Gateway", [
      {
        metadata: { name: "edge", namespace: "shop" },
        spec: { gatewayClassName: "kedge", listeners: [{ name: "http", protocol: "HTTP", port: 80 }] },
      },
    ]),
    resource("HTTPRoute", [
      {
        metadata: { name: `store-${cluster}`, namespace: "shop", creationTimestamp: "2026-10-02T09:15:02Z" },
        spec: {
          parentRefs: [{ name: "edge" }],
          hostnames: [`${cluster}.example.com`],
          rules: [{ backendRefs: [{ name: "store", port: 80 }] }],
        },
      },
    ]),
    kedgeClass(),
    resource("Service", [httpService("shop", "store")]),
    resource("Namespace", [{ metadata: { name: "shop" } }]),
    resource("EndpointSlice", [loopbackSlice("shop", "store", "store-abc", port)]),
  ];
}

const edge = (clusters: string) => `apiVersion: kedge.dev/v1alpha1
kind: EdgeConfig
metadata: { name: live }
spec:
  gatewayClassName: kedge
  egress: { allowLocalhost: true }
  clusters: ${clusters}
`;

describe("live clusters through the Kubernetes API", () => {
  const ws = new Workspace();
  let east: StandIn;
  let west: StandIn;
  let kubeconfig: string;

  beforeAll(async () => {
    east = await startStandIn(clusterObjects("east", 9401), TOKEN);
    west = await startStandIn(clusterObjects("west", 9402), TOKEN, ["httproutes"]);
    kubeconfig = join(ws.dir, "kubeconfig.json");
    writeFileSync(
      kubeconfig,
      kubeconfigFor({ "east-admin": east.url, "west-admin": west.url, gone: `http://127.0.0.1:${await freePort()}` }, TOKEN),
    );
  });

  afterAll(async () => {
    await east.close();
    await west.close();
    ws.remove();
  });

  it("reads a cluster named by its kubeconfig context, beside a folder cluster, and serves its routes", async ({ expect }) => {
    ws.write({
      "kedge.yaml": edge(`[{ name: east, kubeContext: east-admin, kubeconfig: ${JSON.stringify(kubeconfig)} }, { name: folder }]`),
      "clusters/folder/ns.yaml": "apiVersion: v1\nkind: Namespace\nmetadata: { name: other }\n",
    });
    const run = await runScript("scripts/sync.ts", ["--config", ws.config, "--persist-to", ws.state, "--json"]);
    expect(run.code, run.stderr).toBe(0);
    const summary = JSON.parse(run.stdout) as { table: { rules: number }; diagnostics: { severity: string }[] };
    expect(summary.table.rules).toBe(1);
    expect(summary.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
    // Discovery first, then one list per kind the cluster has.
    expect(east.requests).toEqual(
      expect.arrayContaining(["/api/v1", "/apis", `/apis/${GW}/v1`, `/apis/${GW}/v1/httproutes`, "/api/v1/services"]),
    );
  });

  it("a cluster that refuses a listing stops the sync, naming the cluster, the resource and the API's reason", async ({ expect }) => {
    ws.write({ "kedge.yaml": edge(`[{ name: west, kubeContext: west-admin, kubeconfig: ${JSON.stringify(kubeconfig)} }]`) });
    const run = await runScript("scripts/sync.ts", ["--config", ws.config, "--persist-to", ws.state]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      `cluster west (context west-admin, ${west.url}): not allowed to read /apis/${GW}/v1/httproutes (HTTP 403:`,
    );
    expect(run.stderr).toContain('cannot list resource "httproutes"');
  });

  it("a cluster that cannot be reached, or a context the kubeconfig lacks, stops it too", async ({ expect }) => {
    ws.write({ "kedge.yaml": edge(`[{ name: gone, kubeContext: gone, kubeconfig: ${JSON.stringify(kubeconfig)} }]`) });
    const unreachable = await runScript("scripts/sync.ts", ["--config", ws.config, "--persist-to", ws.state]);
    expect(unreachable.code).toBe(2);
    expect(unreachable.stderr).toMatch(
      /cluster gone \(context gone, http:\/\/127\.0\.0\.1:\d+\): the API server cannot be reached \(ECONNREFUSED\); nothing was written/,
    );
    ws.write({ "kedge.yaml": edge(`[{ name: east, kubeContext: prod, kubeconfig: ${JSON.stringify(kubeconfig)} }]`) });
    const missing = await runScript("scripts/sync.ts", ["--config", ws.config, "--persist-to", ws.state]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("cluster east: the kubeconfig has no context prod");
    expect(missing.stderr).toContain("contexts: east-admin, west-admin, gone");
  });

  it("kedge dev serves a live cluster's routes, warns of placeholder secrets, and SIGTERM stops it with exit 0", async ({ expect }) => {
    const project = new Workspace();
    const [edgePort, originPort] = [await freePort(), await freePort()];
    // The cluster's one route takes /store only: the curl printed must name that path.
    const objects = clusterObjects("dev", originPort).map((r) =>
      r.kind === "HTTPRoute"
        ? {
            ...r,
            items: r.items.map((route) => ({
              ...route,
              spec: {
                ...(route.spec as object),
                rules: [{ matches: [{ path: { type: "PathPrefix", value: "/store" } }], backendRefs: [{ name: "store", port: 80 }] }],
              },
            })),
          }
        : r,
    );
    const live = await startStandIn(objects, TOKEN);
    const devKubeconfig = join(project.dir, "kubeconfig.json");
    writeFileSync(devKubeconfig, kubeconfigFor({ "dev-admin": live.url }, TOKEN));
    project.write({ "kedge.yaml": edge(`[{ name: dev, kubeContext: dev-admin, kubeconfig: ${JSON.stringify(devKubeconfig)} }]`) });
    // The project as `kedge init` writes it, with .dev.vars copied from .dev.vars.example unchanged.
    const templates = join(ROOT, "scripts", "cli", "templates");
    const wranglerConfig = join(project.dir, "wrangler.toml");
    writeFileSync(wranglerConfig, readFileSync(join(templates, "wrangler.toml"), "utf8").replace("{{WORKER}}", "worker.mjs"));
    writeFileSync(join(project.dir, ".dev.vars"), readFileSync(join(templates, "dev.vars.example"), "utf8"));
    const args = [
      "dev",
      "--config",
      project.config,
      "--persist-to",
      project.state,
      "--port",
      String(edgePort),
      "--wrangler-config",
      wranglerConfig,
    ];
    const child = spawn(process.execPath, [RUN_BUNDLED, join(ROOT, "scripts", "cli", "main.ts"), ...args], {
      cwd: ROOT,
      env: { ...process.env, WRANGLER_SEND_METRICS: "false" },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true, // its own process group: the finally below can end all of it
    });
    let output = "";
    child.stdout.on("data", (d: Buffer) => (output += d.toString()));
    child.stderr.on("data", (d: Buffer) => (output += d.toString()));
    const exited = new Promise<number | null>((resolveExit) => child.on("exit", (code) => resolveExit(code)));
    try {
      const deadline = Date.now() + 45_000;
      while (!output.includes("kedge is serving") && child.exitCode === null && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 200));
      expect(output).toContain(`kedge is serving on http://127.0.0.1:${edgePort}`);
      expect(output).toContain(`curl -H 'Host: dev.example.com' http://127.0.0.1:${edgePort}/store\n`);
      expect(output).toContain("SESSION_HMAC_KEY, KEDGE_STATUS_TOKEN still hold the placeholder of .dev.vars.example");
      const answer = await getWithHost(edgePort, "dev.example.com", "/store/cart");
      expect(answer.status, answer.body).toBe(200);
      expect((JSON.parse(answer.body) as EchoResponse).endpoint).toBe(`dev/127.0.0.1:${originPort}`);
      // As `kedge sync --local` does: the verdict is written back into the cluster it was read from.
      expect(live.statusWrites.map((w) => w.path)).toContain("shop/store-dev");

      // SIGTERM to kedge alone (not its process group): kedge itself stops workerd and the origins.
      process.kill(child.pid!, "SIGTERM");
      expect(await exited).toBe(0);
      await expect(fetch(`http://127.0.0.1:${edgePort}/`)).rejects.toThrow();
      await expect(fetch(`http://127.0.0.1:${originPort}/`)).rejects.toThrow();
    } finally {
      if (child.exitCode === null) process.kill(-child.pid!, "SIGKILL");
      await live.close();
      project.remove();
    }
  });
});
