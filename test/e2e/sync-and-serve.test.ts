/**
 * The whole path: YAML in a config folder ▸ `scripts/sync.ts` (a real child process) ▸ local KV ▸
 * the Worker in workerd ▸ real loopback origins.
 */
import { execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { request } from "node:http";
import { afterAll, beforeAll, describe, it } from "vitest";
import type { LocalGateway } from "../../scripts/dev/local-gateway";
import { type Origin, webSocketAccept } from "../../scripts/dev/origin-server";
import { edgeConfig, endpointSlice, gatewayAndRoute, service, yamlDocs } from "../support/manifests";
import { ROOT, RUN_BUNDLED, runScript, startGateway, startOrigins, tally, tearDown, Workspace } from "./harness";

function app(ports: { v1: number; v2: number }, weights: [number, number] = [80, 20]): string {
  // The Services say their port carries WebSocket (GEP-1911's kubernetes.io/ws), as the WebSocket test needs.
  const backend = (name: string, port: number, ready = true) =>
    yamlDocs(
      service(name, "shop").replace("port: 8080 }", "port: 8080, appProtocol: kubernetes.io/ws }"),
      endpointSlice({ service: name, name: `${name}-1`, namespace: "shop", port, conditions: `{ ready: ${ready} }` }),
    );
  const routes = gatewayAndRoute({
    namespace: "shop",
    hostname: "shop.example.com",
    route: "shop",
    rules: `    - matches: [{ path: { type: PathPrefix, value: /empty } }]
      backendRefs: [{ name: empty, port: 8080 }]
    - backendRefs:
        - { name: v1, port: 8080, weight: ${weights[0]} }
        - { name: v2, port: 8080, weight: ${weights[1]} }`,
  });
  return yamlDocs(routes, backend("v1", ports.v1), backend("v2", ports.v2), backend("empty", ports.v1, false));
}

/** `npm run sync | true`: the sync's stdout is closed before it prints anything; resolves with its exit code. */
function syncIntoClosedPipe(ws: Workspace): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [RUN_BUNDLED, "scripts/sync.ts", "--config", ws.config, "--persist-to", ws.state], {
      cwd: ROOT,
      env: { ...process.env, WRANGLER_SEND_METRICS: "false" },
      stdio: ["ignore", "pipe", "ignore"],
    });
    child.stdout.destroy();
    child.on("error", reject);
    child.on("close", resolve);
  });
}

interface Handshake {
  status: number;
  accept?: string;
  /** The first text message, read from the raw socket (server frames are unmasked). */
  message?: string;
}

/** A WebSocket handshake through the gateway on a raw socket, then its first text message. */
function openWebSocket(gateway: LocalGateway, host: string, path: string, key: string): Promise<Handshake> {
  return new Promise((resolve, reject) => {
    const headers = { host, connection: "Upgrade", upgrade: "websocket", "sec-websocket-key": key, "sec-websocket-version": "13" };
    const req = request({ host: "127.0.0.1", port: Number(gateway.url.port), path, headers });
    req.setTimeout(10_000, () => req.destroy(new Error("no WebSocket answer within 10 s")));
    req.on("error", reject);
    req.on("response", (res) => {
      res.resume();
      resolve({ status: res.statusCode ?? 0 });
    });
    req.on("upgrade", (res, socket, head) => {
      let bytes = head;
      const tryFrame = () => {
        if (bytes.length < 2) return;
        const short = bytes[1]! & 0x7f;
        const [start, length] = short === 126 ? [4, bytes.readUInt16BE(2)] : [2, short];
        if (bytes.length < start + length) return;
        socket.destroy();
        resolve({
          status: res.statusCode ?? 0,
          accept: res.headers["sec-websocket-accept"],
          message: bytes.subarray(start, start + length).toString(),
        });
      };
      socket.on("data", (chunk: Buffer) => {
        bytes = Buffer.concat([bytes, chunk]);
        tryFrame();
      });
      socket.on("error", reject);
      tryFrame();
    });
    req.end();
  });
}

/** A deployed environment's wrangler config: a real-looking namespace id, in the workspace. */
function deployConfigIn(dir: string): string {
  const file = join(dir, "wrangler.deploy.toml");
  writeFileSync(
    file,
    `name = "kedge"\nmain = "src/index.ts"\n[vars]\nKEDGE_TABLE = "kedge"\n[[kv_namespaces]]\nbinding = "ROUTES"\nid = "0123456789abcdef0123456789abcdef"\n`,
  );
  return file;
}

describe("sync ▸ KV ▸ Worker ▸ origins", () => {
  const ws = new Workspace();
  const deployConfig = () => deployConfigIn(ws.dir);
  let origins: Record<string, Origin>;
  let gateway: LocalGateway;
  let ports: { v1: number; v2: number };

  beforeAll(async () => {
    origins = await startOrigins(["v1", "v2"]);
    ports = { v1: origins.v1!.port, v2: origins.v2!.port };
    ws.write({ "kedge.yaml": edgeConfig("e2e"), "clusters/c1/app.yaml": app(ports) });
    const first = await ws.sync();
    if (first.code !== 0) throw new Error(`first sync failed: ${first.stderr}${first.stdout}`);
    gateway = await startGateway(ws.state, "e2e");
  });

  afterAll(() => tearDown({ gateway, origins, ws }));

  it("splits traffic 80/20 by weight within tolerance over 600 requests", async ({ expect }) => {
    const counts = await tally(gateway, "shop.example.com", "/", 600);
    expect(Object.keys(counts).sort()).toEqual(["v1", "v2"]);
    expect((counts.v1 ?? 0) / 600).toBeGreaterThan(0.74);
    expect((counts.v1 ?? 0) / 600).toBeLessThan(0.86);
  });

  it("answers 404 for an unknown host and 503 for a backend without ready endpoints", async ({ expect }) => {
    const notFound = await gateway.miniflare.dispatchFetch("http://unknown.example.com/");
    expect(notFound.status).toBe(404);
    expect(await notFound.json()).toMatchObject({ error: "ROUTE_NOT_FOUND" });
    const empty = await gateway.miniflare.dispatchFetch("http://shop.example.com/empty");
    expect(empty.status).toBe(503);
    expect(await empty.json()).toMatchObject({ error: "NO_HEALTHY_ENDPOINT" });
  });

  it("passes a WebSocket handshake through to an origin whose Service port has appProtocol kubernetes.io/ws, Upgrade header included", async ({
    expect,
  }) => {
    const key = randomBytes(16).toString("base64");
    const opened = await openWebSocket(gateway, "shop.example.com", "/chat", key);
    expect(opened.status).toBe(101);
    expect(opened.accept).toBe(webSocketAccept(key));
    const hello = JSON.parse(opened.message ?? "{}") as { endpoint?: string; path?: string; upgrade?: string };
    expect(["v1", "v2"]).toContain(hello.endpoint);
    expect(hello).toMatchObject({ path: "/chat", upgrade: "websocket" });
  });

  it("writes nothing when the config did not change", async ({ expect }) => {
    const again = await ws.sync();
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/is already current .*; nothing written/);
  });

  it("--dry-run shows the change and writes nothing", async ({ expect }) => {
    ws.write({ "clusters/c1/app.yaml": app(ports, [100, 0]) });
    const dry = await ws.sync("--dry-run");
    expect(dry.code).toBe(0);
    expect(dry.stdout).toMatch(/dry run: \w+ → \w+ \(nothing written\)/);
    expect(dry.stdout).toMatch(/~ rule c1\/shop\/shop\/rule\/1/);
    expect(Object.keys(await tally(gateway, "shop.example.com", "/", 60)).sort()).toEqual(["v1", "v2"]);
    ws.write({ "clusters/c1/app.yaml": app(ports) });
  });

  it("a YAML syntax error exits 2 naming file and line, and the served table stays", async ({ expect }) => {
    ws.write({ "clusters/c1/broken.yaml": "apiVersion: v1\nkind: Service\nmetadata:\n  name: [oops\n" });
    const broken = await ws.sync();
    expect(broken.code).toBe(2);
    expect(broken.stderr).toMatch(/broken\.yaml:\d+:\d+: /);
    expect(broken.stderr).toMatch(/nothing was written/);
    // No local KV host (started ahead of need) outlives a sync that stopped at a config error.
    const running = execFileSync("ps", ["-eo", "args="]).toString().split("\n");
    expect(running.filter((line) => line.includes("local-kv-host") && line.includes(ws.state))).toEqual([]);
    ws.write({ "clusters/c1/broken.yaml": "# fixed\n" });
    expect(Object.keys(await tally(gateway, "shop.example.com", "/", 60)).sort()).toEqual(["v1", "v2"]);
  });

  it("a --persist-to that is not a folder exits 2 naming it, and nothing is written", async ({ expect }) => {
    const file = join(ws.dir, "not-a-folder");
    writeFileSync(file, "");
    const run = await runScript("scripts/sync.ts", ["--config", ws.config, "--persist-to", file]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/error: local KV in .*not-a-folder did not start: .*not-a-folder is not a folder/);
    expect(run.stderr).toMatch(/fix: --persist-to must name a folder/);
    expect(Object.keys(await tally(gateway, "shop.example.com", "/", 40)).sort()).toEqual(["v1", "v2"]);
  });

  it("--remote first checks the namespace id and the login, each in one line, before reading anything", async ({ expect }) => {
    // No token and an empty home: wrangler has no login to use, so nothing can leave this machine.
    const noCredentials = { HOME: ws.dir, XDG_CONFIG_HOME: ws.dir, CLOUDFLARE_API_TOKEN: undefined, CLOUDFLARE_API_KEY: undefined };
    const placeholder = await runScript("scripts/sync.ts", ["--config", ws.config, "--remote", "--dry-run"], { env: noCredentials });
    expect(placeholder.code).toBe(2);
    expect(placeholder.stdout).toBe("");
    expect(placeholder.stderr.trim().split("\n")).toEqual([
      'error: --remote: wrangler.toml [[kv_namespaces]] ROUTES has id "kedge-routes-local", not a KV namespace id; nothing was read or written',
      "  fix: `npx wrangler kv namespace create ROUTES` prints the id to put there",
    ]);
    const noLogin = await runScript(
      "scripts/sync.ts",
      ["--config", ws.config, "--remote", "--dry-run", "--wrangler-config", deployConfig()],
      {
        env: noCredentials,
      },
    );
    expect(noLogin.code).toBe(2);
    expect(noLogin.stdout).toBe("");
    expect(noLogin.stderr.trim().split("\n")[0]).toBe(
      "error: --remote: wrangler has no Cloudflare credentials (no CLOUDFLARE_API_TOKEN, no `wrangler login`); nothing was read or written",
    );
  });

  it("--remote refuses loopback endpoints a deployed Worker cannot reach: exit 2, the cluster and the fix, nothing written", async ({
    expect,
  }) => {
    // A token that is never sent: the refusal comes before any KV access (and there is no network).
    const token = { HOME: ws.dir, XDG_CONFIG_HOME: ws.dir, CLOUDFLARE_API_TOKEN: "never-sent" };
    const run = await runScript("scripts/sync.ts", ["--config", ws.config, "--remote", "--wrangler-config", deployConfig()], {
      env: token,
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      /✗ --remote: cluster c1: 2 endpoints c1\/127\.0\.0\.1:\d+, c1\/127\.0\.0\.1:\d+ are in the loopback range \(this machine\)/,
    );
    expect(run.stderr).toMatch(/fix: run cloudflared in the cluster, .*clusters\[\]\.endpoints\.network/);
    expect(run.stderr).toMatch(/nothing written/);
    expect(run.stderr).not.toContain(String.fromCharCode(27)); // no terminal colour codes
    expect(Object.keys(await tally(gateway, "shop.example.com", "/", 40)).sort()).toEqual(["v1", "v2"]);
  });

  it("--strict exits 1 and writes nothing when a resource is rejected", async ({ expect }) => {
    ws.write({
      "clusters/c1/bad-route.yaml":
        "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: { name: bad, namespace: shop }\nspec:\n  parentRefs: [{ name: gw }]\n  rules: [{ matches: [{ path: { type: PathPrefix, value: nope } }] }]\n",
    });
    const strict = await ws.sync("--strict");
    expect(strict.code).toBe(1);
    expect(strict.stdout).toMatch(/HTTPRoute shop\/bad spec\.rules\[0\]\.matches\[0\]\.path\.value: UnsupportedValue/);
    expect(strict.stdout).toMatch(/bad-route\.yaml:6:\d+\)/);
    expect(strict.stderr).toMatch(/--strict: 1 error above; nothing written/);
    const lenient = await ws.sync("--dry-run");
    expect(lenient.code).toBe(0);
    ws.write({ "clusters/c1/bad-route.yaml": "# removed\n" });
  });

  it("a new table takes over, and --rollback restores the previous one", async ({ expect }) => {
    ws.write({ "clusters/c1/app.yaml": app(ports, [1, 0]) });
    const pushed = await ws.sync("--json");
    expect(pushed.code).toBe(0);
    const summary = JSON.parse(pushed.stdout) as { table: { version: string }; push: { previous: string; history: string[] } };
    // The history the push wrote, newest first: this version, then the one it replaced.
    expect(summary.push.history.slice(0, 2)).toEqual([summary.table.version, summary.push.previous]);
    expect(await tally(gateway, "shop.example.com", "/", 40)).toEqual({ v1: 40 });
    const rollback = await ws.kedge("rollback");
    expect(rollback.code).toBe(0);
    expect(rollback.stdout).toMatch(/pointer moved \w+ → \w+/);
    expect(Object.keys(await tally(gateway, "shop.example.com", "/", 80)).sort()).toEqual(["v1", "v2"]);
  });

  it("--rollback where no table was ever written says so and exits 2", async ({ expect }) => {
    const fresh = new Workspace();
    try {
      fresh.write({ "kedge.yaml": edgeConfig("e2e"), "clusters/c1/app.yaml": app(ports) });
      const rollback = await fresh.kedge("rollback");
      expect(rollback.code).toBe(2);
      expect(rollback.stderr).toContain("table e2e was never written here: nothing to roll back to");
    } finally {
      fresh.remove();
    }
  });

  it("keeps serving the last good table when the pointer names a missing blob", async ({ expect }) => {
    const kv = await gateway.miniflare.getKVNamespace("ROUTES");
    const pointer = await kv.get("table/e2e/current", "text");
    await kv.put("table/e2e/current", JSON.stringify({ version: "0000missing", schemaVersion: 1, updatedAt: new Date().toISOString() }));
    expect(Object.keys(await tally(gateway, "shop.example.com", "/", 40)).sort()).toEqual(["v1", "v2"]);
    await kv.put("table/e2e/current", pointer ?? "");
  });

  it("a sync whose output pipe is closed (`| head`, `| true`) still pushes its table and exits 0", async ({ expect }) => {
    ws.write({ "clusters/c1/app.yaml": app(ports, [1, 0]) });
    expect(await syncIntoClosedPipe(ws)).toBe(0);
    expect(await tally(gateway, "shop.example.com", "/", 40)).toEqual({ v1: 40 });
    ws.write({ "clusters/c1/app.yaml": app(ports) });
    expect((await ws.sync()).code).toBe(0);
  });
});
