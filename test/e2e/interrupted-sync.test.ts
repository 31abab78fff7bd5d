/**
 * A sync killed at any moment of its push leaves the edge serving a whole table: the previous one or
 * the new one, never a pointer to a missing or partial blob.
 */
import { execFileSync, spawn } from "node:child_process";
import { afterAll, beforeAll, describe, it } from "vitest";
import type { LocalGateway } from "../../scripts/dev/local-gateway";
import type { Origin } from "../../scripts/dev/origin-server";
import { parseRouteTable, parseTablePointer } from "../../src/table/parse-route-table";
import { endpointSlice, gatewayAndRoute, service, yamlDocs } from "../support/manifests";
import { ROOT, RUN_BUNDLED, startGateway, startOrigins, tearDown, Workspace } from "./harness";

const EDGE = `apiVersion: kedge.dev/v1alpha1
kind: EdgeConfig
metadata: { name: interrupted }
spec: { gatewayClassName: kedge, clusters: [{ name: c1 }] }
`;

/** Every request to shop.example.com goes to `target`; `filler` extra routes make the table (and its push) bigger. */
function config(ports: Record<string, number>, target: "old" | "new", filler: number): string {
  const fillerRoute = (i: number) => `apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: { name: filler-${i}, namespace: shop }
spec:
  parentRefs: [{ name: gw }]
  hostnames: [filler-${i}.example]
  rules: [{ backendRefs: [{ name: ${target}, port: 8080 }] }]
`;
  return yamlDocs(
    gatewayAndRoute({
      namespace: "shop",
      route: "shop",
      routeHostnames: ["shop.example.com"],
      rules: `    - backendRefs: [{ name: ${target}, port: 8080 }]`,
    }),
    ...Array.from({ length: filler }, (_, i) => fillerRoute(i)),
    ...(["old", "new"] as const).flatMap((name) => [
      service(name, "shop"),
      endpointSlice({ service: name, name: `${name}-1`, namespace: "shop", port: ports[name]! }),
    ]),
  );
}

/**
 * Runs the sync as `npm run sync` does, in a process group of its own, and kills the whole group after
 * `ms`, as with a killed terminal. Its local KV host leads a group of its own; it sees the sync go and
 * ends itself and its workerd (checked after every kill).
 */
function syncKilledAfter(ws: Workspace, ms: number): Promise<{ killed: boolean; code: number | null }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [RUN_BUNDLED, "scripts/sync.ts", "--config", ws.config, "--persist-to", ws.state], {
      cwd: ROOT,
      env: { ...process.env, WRANGLER_SEND_METRICS: "false" },
      stdio: "ignore",
      detached: true,
    });
    let killed = false;
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid!, "SIGKILL");
        killed = true;
      } catch {
        // The sync had already finished.
      }
    }, ms);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ killed: killed && code === null, code });
    });
  });
}

/** Local KV hosts serving `state` that still run (a zombie has ended; it only awaits reaping). */
function localKvHostsOf(state: string): string[] {
  return execFileSync("ps", ["-eo", "stat=,args="])
    .toString()
    .split("\n")
    .filter((line) => line.includes("local-kv-host") && line.includes(state) && !line.trim().startsWith("Z"));
}

describe("a sync killed mid-push", () => {
  const ws = new Workspace();
  let origins: Record<string, Origin>;
  let ports: Record<string, number>;
  let gateway: LocalGateway;

  beforeAll(async () => {
    origins = await startOrigins(["old", "new"]);
    ports = { old: origins.old!.port, new: origins.new!.port };
    ws.write({ "kedge.yaml": EDGE, "clusters/c1/app.yaml": config(ports, "old", 0) });
    const first = await ws.sync();
    if (first.code !== 0) throw new Error(first.stderr + first.stdout);
    gateway = await startGateway(ws.state, "interrupted");
  });

  afterAll(() => tearDown({ gateway, origins, ws }));

  it("leaves a whole table served, whenever the kill lands", { timeout: 180_000 }, async ({ expect }) => {
    const kv = await gateway.miniflare.getKVNamespace("ROUTES");
    const served = new Set<string>();
    let killedRuns = 0;
    // Kill points spread over process start, compile, the local KV's start-up and the writes themselves.
    for (const [i, ms] of [400, 900, 1400, 1800, 2200, 2600, 3000, 3600].entries()) {
      ws.write({ "clusters/c1/app.yaml": config(ports, i % 2 === 0 ? "new" : "old", 200 + i) });
      const run = await syncKilledAfter(ws, ms);
      if (run.killed) killedRuns++;
      await expect.poll(() => localKvHostsOf(ws.state), { timeout: 10_000, message: `host left after a kill at ${ms} ms` }).toEqual([]);
      const pointer = parseTablePointer(JSON.parse((await kv.get("table/interrupted/current", "text")) ?? "null"));
      expect(pointer.ok, `after a kill at ${ms} ms`).toBe(true);
      if (!pointer.ok) continue;
      const blob = await kv.get(`table/interrupted/${pointer.value.version}`, "text");
      expect(blob, `blob of ${pointer.value.version}`).not.toBeNull();
      expect(parseRouteTable(JSON.parse(blob ?? "null")).ok, `blob of ${pointer.value.version} parses`).toBe(true);
      const response = await gateway.miniflare.dispatchFetch("http://shop.example.com/");
      expect(response.status, `after a kill at ${ms} ms`).toBe(200);
      served.add(((await response.json()) as { endpoint: string }).endpoint);
    }
    expect(killedRuns).toBeGreaterThan(0);
    expect([...served].every((e) => e === "old" || e === "new")).toBe(true);
  });
});
