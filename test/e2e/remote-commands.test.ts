/**
 * `--remote` commands through the real CLI and the real wrangler (`wrangler auth token`) against a local stand-in
 * of the Cloudflare API: a push, `history` and `status` leave and read what docs/storage.md describes; `diff`,
 * `explain` and `rollback` (and its dry run) read and move it, retrying a 503; a sharded push, a canary of it
 * and `promote` leave its shards and pointer as described there; an account the token does not
 * reach, a wrong namespace id, a wrong token and a token without KV Edit each exit 2 with one line naming the
 * cause. The wrangler run is the project's (`KEDGE_E2E_WRANGLER`, a wrangler package folder, to run this file
 * against another); the packed-package test pushes from the tarball on both toolchains.
 */
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, it } from "vitest";
import { type CloudflareApiStandIn, startCloudflareApi } from "../support/cloudflare-api-stand-in";
import { edgeConfig, endpointSlice, gatewayAndRoute, service, yamlDocs } from "../support/manifests";
import { ROOT, RUN_BUNDLED, runProcess, Workspace } from "./harness";

const ACCOUNT = "a".repeat(32);
const NAMESPACE = "1".repeat(32);
const WRANGLER = process.env.KEDGE_E2E_WRANGLER ?? join(ROOT, "node_modules", "wrangler");
const NODE = process.env.KEDGE_E2E_NODE ?? process.execPath;

const WEB_RULE = "    - backendRefs: [{ name: web, port: 80 }]";
/** The shop's route `web` on shop.example.com, with these rules (YAML indented by 4), its Service and one endpoint. */
const app = (rules = WEB_RULE) =>
  yamlDocs(
    gatewayAndRoute({ namespace: "shop", routeHostnames: ["shop.example.com"], rules }),
    service("web", "shop", 80),
    endpointSlice({ service: "web", name: "web-1", namespace: "shop", port: 8080, addresses: ["203.0.113.7"] }),
  );
const APP = app();

describe("--remote commands against a Cloudflare API stand-in, through real wrangler", { timeout: 120_000 }, () => {
  const ws = new Workspace();
  let api: CloudflareApiStandIn;
  const project = join(ws.dir, "project");
  const wranglerToml = (id: string) => {
    const path = join(project, `wrangler-${id.slice(0, 4)}.toml`);
    writeFileSync(
      path,
      `name = "edge"\nmain = "worker.js"\ncompatibility_date = "2026-04-01"\n[[kv_namespaces]]\nbinding = "ROUTES"\nid = "${id}"\n`,
    );
    return path;
  };
  const kedge = (args: string[], token = "edit-token", id = NAMESPACE, account = ACCOUNT) =>
    runProcess(
      NODE,
      [RUN_BUNDLED, join(ROOT, "scripts/cli/main.ts"), ...args, "--config", ws.config, "--wrangler-config", wranglerToml(id)],
      {
        cwd: project,
        env: { CLOUDFLARE_API_BASE_URL: api.url, CLOUDFLARE_API_TOKEN: token, CLOUDFLARE_ACCOUNT_ID: account },
      },
    );
  /** The pointer the stand-in's KV holds now. */
  const current = () =>
    JSON.parse(api.texts(NAMESPACE)["table/kedge/current"]!) as {
      version: string;
      rolledBack?: { from: string };
      canary?: { version: string; percent: number };
    };

  beforeAll(async () => {
    api = await startCloudflareApi({
      accounts: { [ACCOUNT]: { name: "shop", namespaces: [NAMESPACE] } },
      tokens: { "edit-token": { accounts: [ACCOUNT], kv: "edit" }, "read-token": { accounts: [ACCOUNT], kv: "read" } },
    });
    mkdirSync(join(project, "node_modules"), { recursive: true });
    symlinkSync(WRANGLER, join(project, "node_modules", "wrangler"));
    ws.write({
      "kedge.yaml": edgeConfig("kedge"),
      "clusters/c1/app.yaml": APP,
    });
  });

  afterAll(async () => {
    await api.close();
    ws.remove();
  });

  it("pushes one route: pointer, version and history as docs/storage.md describes; history and status read them", async ({ expect }) => {
    const sync = await kedge(["sync", "--remote"]);
    expect(sync.code).toBe(0);
    const version = /wrote table kedge@([0-9a-f]{20}) to remote KV namespace 1{32}/.exec(sync.stdout)?.[1];
    expect(version).toBeDefined();
    const kv = api.texts(NAMESPACE);
    expect(Object.keys(kv)).toEqual([`table/kedge/${version}`, "table/kedge/current", "table/kedge/history"]);
    expect(JSON.parse(kv["table/kedge/current"]!)).toMatchObject({ version });
    expect(api.unknown).toEqual([]);
    const history = await kedge(["history", "--remote"]);
    expect(history.code).toBe(0);
    expect(history.stdout).toContain(`* ${version}`);
    const status = await kedge(["status", "--remote"]);
    expect(status.code).toBe(0);
    expect(status.stdout).toContain(`table kedge@${version} in remote KV namespace ${NAMESPACE}`);
  });

  it("diffs, explains and rolls back what was pushed; a dry run writes nothing; a 503 from the API is retried", async ({ expect }) => {
    const first = current().version;
    const same = await kedge(["diff", "--remote"]);
    expect(same.code, same.stderr).toBe(0);
    // A second rule for /api: the diff against the served table says so (exit 1, as kubectl diff).
    ws.write({
      "clusters/c1/app.yaml": app(
        `    - matches: [{ path: { type: PathPrefix, value: /api } }]\n      backendRefs: [{ name: web, port: 80 }]\n${WEB_RULE}`,
      ),
    });
    const changed = await kedge(["diff", "--remote"]);
    expect(changed.code, changed.stderr).toBe(1);
    expect(changed.stdout).toContain("/api");
    const sync = await kedge(["sync", "--remote"]);
    expect(sync.code, sync.stderr).toBe(0);
    const second = current().version;
    expect(second).not.toBe(first);
    const explain = await kedge(["explain", "--remote", "--host", "shop.example.com", "--path", "/api/cart"]);
    expect(explain.code, explain.stderr).toBe(0);
    // The served table is the second version: its /api rule is the one chosen.
    expect(explain.stdout).toContain("▶ c1/shop/web/rule/0/match/0: chosen");
    expect(explain.stdout).toContain("c1/203.0.113.7:8080");
    const dryRun = await kedge(["rollback", "--remote", "--dry-run"]);
    expect(dryRun.code, dryRun.stderr).toBe(0);
    expect(dryRun.stdout).toContain(first);
    expect(current().version).toBe(second);
    // The API answers the next two requests 503: the command retries them and goes on.
    api.failNext(2, 503);
    const rollback = await kedge(["rollback", "--remote"]);
    expect(rollback.code, rollback.stderr).toBe(0);
    expect(current()).toMatchObject({ version: first, rolledBack: { from: second } });
    expect(api.requests.filter((r) => r.status === 503)).toHaveLength(2);
    ws.write({ "clusters/c1/app.yaml": APP });
  });

  it("pushes a sharded table, then a canary of it, and promotes the canary", async ({ expect }) => {
    // 40 more hostnames, one route each: with 1 KiB shards, the table is stored in shards by host.
    const routes = Array.from(
      { length: 40 },
      (_, i) =>
        `---\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: { name: r${i}, namespace: shop }\nspec: { parentRefs: [{ name: gw }], hostnames: [h${i}.example.com], rules: [{ backendRefs: [{ name: web, port: 80 }] }] }\n`,
    ).join("");
    ws.write({ "clusters/c1/app.yaml": APP + routes });
    const sharded = await kedge(["sync", "--remote", "--shard-size", "1KiB"]);
    expect(sharded.code, sharded.stderr).toBe(0);
    const version = current().version;
    const shards = Object.keys(api.texts(NAMESPACE)).filter((k) => k.startsWith(`table/kedge/${version}/shard/`));
    expect(shards.length).toBeGreaterThan(1);
    const root = JSON.parse(api.texts(NAMESPACE)[`table/kedge/${version}`]!) as { version: string };
    expect(root.version).toBe(version);
    // A canary of a change: the pointer keeps the sharded version and names the new one beside it.
    ws.write({ "clusters/c1/app.yaml": APP + routes.replace("h0.example.com", "h0.example.com, h0.example.net") });
    const canary = await kedge(["sync", "--remote", "--shard-size", "1KiB", "--canary", "20"]);
    expect(canary.code, canary.stderr).toBe(0);
    const pointer = current();
    expect(pointer.version).toBe(version);
    expect(pointer.canary).toMatchObject({ percent: 20 });
    const promote = await kedge(["promote", "--remote"]);
    expect(promote.code, promote.stderr).toBe(0);
    const promoted = current();
    expect(promoted.version).toBe(pointer.canary!.version);
    expect(promoted.canary).toBeUndefined();
    ws.write({ "clusters/c1/app.yaml": APP });
  });

  it("names an account the token does not reach, exit 2, before anything is written", async ({ expect }) => {
    const before = JSON.stringify(api.texts(NAMESPACE));
    const other = "b".repeat(32);
    const mismatch = await kedge(["sync", "--remote"], "edit-token", NAMESPACE, other);
    expect(mismatch.code).toBe(2);
    expect(mismatch.stderr).toMatch(new RegExp(`^error: --remote: .*${other}`, "m"));
    expect(JSON.stringify(api.texts(NAMESPACE))).toBe(before);
  });

  it("names a wrong namespace id, a wrong token and a token without KV Edit in one line each, exit 2", async ({ expect }) => {
    const wrongNamespace = await kedge(["history", "--remote"], "edit-token", "2".repeat(32));
    expect(wrongNamespace.code).toBe(2);
    expect(wrongNamespace.stderr).toContain(`error: --remote: KV namespace ${"2".repeat(32)} ([[kv_namespaces]] ROUTES in`);
    expect(wrongNamespace.stderr).toContain("\"get namespace: 'namespace not found'\" [code 10013]");
    const wrongToken = await kedge(["sync", "--remote"], "no-such-token");
    expect(wrongToken.code).toBe(2);
    expect(wrongToken.stderr).toContain(
      'error: --remote: Cloudflare refused the API token in CLOUDFLARE_API_TOKEN: "Invalid access token" [code 9109]',
    );
    const readOnly = await kedge(["rollback", "--remote"], "read-token");
    expect(readOnly.code).toBe(2);
    expect(readOnly.stderr).toContain("lacks the permission Workers KV Storage: Edit");
  });
});
