/**
 * Pods behind private networks, end to end: two clusters reached through VPC network bindings whose pods
 * have the same IP addresses, synced by the CLI and served by the real Worker in workerd, each binding a
 * stand-in with the real binding's shape (its URL names the pod; its fetch() throws when the address cannot
 * be reached, as a down tunnel's does) mapping that cluster's addresses to loopback origins. Traffic follows
 * the clusters' weights, sessions stay on one pod, mirrors and the Cron health probes go through the
 * bindings, and a cluster whose network refuses connections fails over without a failed request.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, it } from "vitest";
import type { LocalGateway } from "../../scripts/dev/local-gateway";
import type { NetworkAddresses } from "../../scripts/dev/network-stand-in";
import { type EchoResponse, type Origin, startOrigin } from "../../scripts/dev/origin-server";
import { endpointSlice, gatewayAndRoute, service, yamlDocs } from "../support/manifests";
import { ROOT, runProcess, runScript, startGateway, tally, tearDown, Workspace } from "./harness";

const EDGE = `apiVersion: kedge.dev/v1alpha1
kind: EdgeConfig
metadata: { name: private }
spec:
  gatewayClassName: kedge
  healthChecks: { path: /__origin/health, timeout: 1s, healthyThreshold: 1, unhealthyThreshold: 1 }
  clusters:
    - { name: east, weight: 1, endpoints: { network: VPC_EAST } }
    - { name: west, weight: 3, endpoints: { network: VPC_WEST } }
`;

/** Applied alike to both clusters: one route over Service storefront, a sticky /cart, a mirrored /mirror. */
const SAME_EVERYWHERE = yamlDocs(
  gatewayAndRoute({
    namespace: "shop",
    hostname: "shop.example.com",
    route: "shop",
    rules: `    - matches: [{ path: { type: PathPrefix, value: /cart } }]
      sessionPersistence: { sessionName: cart }
      backendRefs: [{ name: storefront, port: 8080 }]
    - matches: [{ path: { type: PathPrefix, value: /mirror } }]
      filters: [{ type: RequestMirror, requestMirror: { backendRef: { name: audit, port: 8080 } } }]
      backendRefs: [{ name: storefront, port: 8080 }]
    - backendRefs: [{ name: storefront, port: 8080 }]`,
  }),
  service("storefront", "shop"),
);

/** The pods: the same two addresses in both clusters (overlapping pod CIDRs), and an audit pod in west. */
const PODS = ["10.0.0.5", "10.0.0.6"];
const pods = (cluster: string) =>
  PODS.map((ip, i) =>
    endpointSlice({ service: "storefront", name: `storefront-${cluster}-${i}`, namespace: "shop", port: 8080, addresses: [ip] }),
  );
const AUDIT = yamlDocs(
  service("audit", "shop"),
  endpointSlice({ service: "audit", name: "audit", namespace: "shop", port: 8080, addresses: ["10.0.0.9"] }),
);

const ids = {
  east: PODS.map((ip) => `east/${ip}:8080`),
  west: PODS.map((ip) => `west/${ip}:8080`),
  audit: "west/10.0.0.9:8080",
};

describe("clusters behind VPC network bindings: sync ▸ Worker ▸ stand-ins ▸ pods", () => {
  const ws = new Workspace();
  const origins: Record<string, Origin> = {};
  let gateway: LocalGateway;

  const get = async (path: string, headers: Record<string, string> = {}) => {
    const response = await gateway.miniflare.dispatchFetch(`http://shop.example.com${path}`, { headers });
    const body = (await response.json()) as EchoResponse & { error?: string };
    return { status: response.status, endpoint: body.endpoint ?? body.error, body, headers: response.headers };
  };
  const cron = async () => {
    const worker = await gateway.miniflare.getWorker("kedge");
    await worker.scheduled({ scheduledTime: new Date(), cron: "* * * * *" });
  };
  const setHealth = (id: string, status: number) => fetch(`http://127.0.0.1:${origins[id]!.port}/__origin/health?set=${status}`);

  beforeAll(async () => {
    // One origin per pod, named as kedge names the endpoint: the answer says which cluster's pod it reached.
    const networks: NetworkAddresses = { VPC_EAST: {}, VPC_WEST: {} };
    for (const id of [...ids.east, ...ids.west, ids.audit]) {
      const [cluster, address] = id.split("/") as [string, string];
      origins[id] = await startOrigin({ cluster, endpoint: id, backends: [] });
      networks[cluster === "east" ? "VPC_EAST" : "VPC_WEST"]![address] = `127.0.0.1:${origins[id].port}`;
    }
    ws.write({
      "kedge.yaml": EDGE,
      "clusters/east/app.yaml": yamlDocs(SAME_EVERYWHERE, ...pods("east")),
      "clusters/west/app.yaml": yamlDocs(SAME_EVERYWHERE, ...pods("west"), AUDIT),
    });
    const sync = await ws.sync();
    if (sync.code !== 0) throw new Error(`sync exited ${sync.code}: ${sync.stdout}${sync.stderr}`);
    gateway = await startGateway(ws.state, "private", networks);
  });

  afterAll(() => tearDown({ gateway, origins, ws }));

  it("spreads traffic over both clusters by weight, each pod of an address reached through its own cluster's network", async ({
    expect,
  }) => {
    const counts = await tally(gateway, "shop.example.com", "/", 400);
    expect(Object.keys(counts).sort()).toEqual([...ids.east, ...ids.west]);
    const east = (counts[ids.east[0]!] ?? 0) + (counts[ids.east[1]!] ?? 0);
    // west weighs 3, east 1: about 100 of 400 for east.
    expect(east).toBeGreaterThan(50);
    expect(east).toBeLessThan(150);
  });

  it("keeps each session on one pod; the token names no cluster, namespace or address", async ({ expect }) => {
    for (let s = 0; s < 8; s++) {
      const first = await get("/cart");
      const cookie = first.headers.get("set-cookie")!.split(";")[0]!;
      const token = cookie.split("=")[1]!;
      for (const secret of ["east", "west", "shop", "10.0.0", "storefront"]) expect(token).not.toContain(secret);
      expect(atob(token.split(".")[1]!.replaceAll("-", "+").replaceAll("_", "/").slice(0, 64))).not.toMatch(/east|west|10\.0\.0/);
      for (let i = 0; i < 6; i++) {
        const next = await get("/cart", { cookie });
        expect(next.endpoint).toBe(first.endpoint);
        expect(next.headers.get("set-cookie")).toBeNull();
      }
    }
  });

  it("sends a mirror's copy through the mirror backend's network", async ({ expect }) => {
    const testId = `mirror-${Date.now()}`;
    expect((await get("/mirror", { "x-test-id": testId })).status).toBe(200);
    const audit = `http://127.0.0.1:${origins[ids.audit]!.port}/__origin/count?testId=${testId}`;
    let count = 0;
    for (let i = 0; i < 40 && count === 0; i++) {
      count = ((await (await fetch(audit)).json()) as { count: number }).count;
      if (count === 0) await new Promise((r) => setTimeout(r, 50));
    }
    expect(count).toBe(1);
  });

  it("probes each pod through its network: one cluster's failing pod is taken out, the same address in the other stays", async ({
    expect,
  }) => {
    await setHealth(ids.west[0]!, 503);
    await cron();
    const counts = await tally(gateway, "shop.example.com", "/", 200);
    expect(counts[ids.west[0]!]).toBeUndefined();
    expect(counts[ids.east[0]!]).toBeGreaterThan(0);
    await setHealth(ids.west[0]!, 200);
    await cron();
    expect(Object.keys(await tally(gateway, "shop.example.com", "/", 200)).sort()).toEqual([...ids.east, ...ids.west]);
  });

  it("fails over when one cluster's network refuses connections: no failed request, its sessions move", async ({ expect }) => {
    // A session pinned to east, before east's tunnel goes down.
    let pinned: string | undefined;
    for (let i = 0; i < 40 && !pinned; i++) {
      const first = await get("/cart");
      if (first.endpoint?.startsWith("east/")) pinned = first.headers.get("set-cookie")!.split(";")[0]!;
    }
    expect(pinned).toBeDefined();
    for (const id of ids.east) await origins[id]!.close();
    const counts = await tally(gateway, "shop.example.com", "/", 300);
    expect(Object.keys(counts).sort()).toEqual(ids.west);
    const moved = await get("/cart", { cookie: pinned! });
    expect(moved.status).toBe(200);
    expect(ids.west).toContain(moved.endpoint);
    expect(moved.headers.get("set-cookie")).toMatch(/^cart=/);
  });

  it("with every network down, the error names nothing of the clusters", async ({ expect }) => {
    for (const id of [...ids.west, ids.audit]) await origins[id]!.close();
    const down = await gateway.miniflare.dispatchFetch("http://shop.example.com/");
    const text = await down.text();
    expect(down.status).toBe(503);
    expect(JSON.parse(text)).toMatchObject({ error: "UPSTREAM_UNREACHABLE" });
    for (const secret of ["east", "west", "shop", "10.0.0", "VPC_", "storefront"]) {
      expect(text).not.toContain(secret);
      for (const [name, value] of down.headers) expect(`${name}: ${value}`).not.toContain(secret);
    }
  });
});

describe("the deployed environment of the example wrangler.toml", () => {
  it("bundles with wrangler deploy --dry-run, listing each cluster's VPC network binding", async ({ expect }) => {
    const outdir = mkdtempSync(join(tmpdir(), "kedge-deploy-"));
    const wrangler = join(ROOT, "node_modules", "wrangler", "bin", "wrangler.js");
    const run = await runProcess(process.execPath, [wrangler, "deploy", "--dry-run", "--env", "production", "--outdir", outdir], {
      env: { WRANGLER_SEND_METRICS: "false", NO_COLOR: "1" },
    });
    rmSync(outdir, { recursive: true, force: true });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/env\.VPC_US_WEST \(REPLACE_WITH_US_WEST_TUNNEL_ID\)\s+VPC Network/);
    expect(run.stdout).toMatch(/env\.VPC_EU_CENTRAL \(cf1:vnet:REPLACE_WITH_EU_CENTRAL_VNET_ID\)\s+VPC Network/);
  });
});

describe("sync --remote --dry-run against a wrangler config without the bindings", () => {
  const ws = new Workspace();
  afterAll(() => ws.remove());

  it("names each missing binding with the block to add, exits 2, and reads nothing remote", async ({ expect }) => {
    ws.write({
      "kedge.yaml": EDGE,
      "clusters/east/app.yaml": yamlDocs(SAME_EVERYWHERE, ...pods("east")),
      "clusters/west/app.yaml": yamlDocs(SAME_EVERYWHERE, ...pods("west")),
    });
    const dir = mkdtempSync(join(ws.dir, "deploy-"));
    const wranglerConfig = join(dir, "wrangler.toml");
    writeFileSync(
      wranglerConfig,
      `name = "kedge"
main = "src/index.ts"
[vars]
KEDGE_TABLE = "private"
[[kv_namespaces]]
binding = "ROUTES"
id = "0123456789abcdef0123456789abcdef"
[[vpc_networks]]
binding = "VPC_EAST"
tunnel_id = "550e8400-e29b-41d4-a716-446655440000"
remote = true
`,
    );
    // A token that is never sent (and no network): were anything read from Cloudflare, wrangler would fail.
    const token = { HOME: ws.dir, XDG_CONFIG_HOME: ws.dir, CLOUDFLARE_API_TOKEN: "never-sent" };
    const run = await runScript("scripts/sync.ts", ["--config", ws.config, "--remote", "--dry-run", "--wrangler-config", wranglerConfig], {
      env: token,
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      `✗ --remote: cluster west is reached through the VPC network binding VPC_WEST, which ${wranglerConfig} lacks; the Worker could not reach its pods. Add:
[[vpc_networks]]
binding = "VPC_WEST"`,
    );
    expect(run.stderr).not.toContain("VPC_EAST");
    expect(run.stderr).toMatch(/--remote: 1 problem above would fail requests at the edge; nothing written/);
    expect(run.stderr).not.toMatch(/wrangler kv/);
  });
});
