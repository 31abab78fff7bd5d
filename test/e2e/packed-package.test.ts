/**
 * kedge as a stranger meets it: the package packed with `npm pack` (its prepack builds dist/), installed
 * from the tarball into an empty folder with the README's install command, the install then made
 * read-only and root's, and every command of the README's first-hour path run there as another user
 * (nobody, when the tests run as root): `npx kedge init`, `npx kedge dev` serving the scaffolded project,
 * `npx wrangler deploy --dry-run` bundling it; every command answering `--help` with its own text; nothing
 * ever written inside node_modules; safe pushes refusing a schema error, a drop to nothing and a
 * placeholder KV namespace; then `sync --remote`, `history --remote` and `rollback --remote` through the
 * installed wrangler against a Cloudflare API stand-in, leaving KV as docs/storage.md says. Dependencies come
 * from npm's cache or registry, as for any package.
 */
import { execFileSync, type SpawnOptions, spawn, spawnSync } from "node:child_process";
import {
  chmodSync,
  chownSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, it } from "vitest";
import { freePort, ROOT } from "./harness";
import { startCloudflareApi } from "../support/cloudflare-api-stand-in";
import { TOOLCHAINS, type Toolchain } from "../support/toolchains";

const README = readFileSync(join(ROOT, "README.md"), "utf8");

/** The commands of the README's fenced sh block that contains `needle`. */
function readmeBlock(needle: string): string[] {
  const block = [...README.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!).find((b) => b.includes(needle));
  if (!block) throw new Error(`the README has no sh block with ${needle}`);
  return block
    .split("\n")
    .map((l) => l.replace(/#.*$/, "").trim())
    .filter(Boolean);
}

/** GET `path` with a Host header (fetch() sends the URL's host and no other). */
function getWithHost(
  port: number,
  host: string,
  path = "/",
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path, headers: { host, ...headers } }, (res) => {
      let body = "";
      res.on("data", (d: Buffer) => (body += d.toString()));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

/** Every file under `dir` with its size and mtime: what "nothing written" compares. */
function snapshot(dir: string): string {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const path = join(d, name);
      const stat = statSync(path);
      if (stat.isDirectory()) walk(path);
      else out.push(`${path} ${stat.size} ${stat.mtimeMs}`);
    }
  };
  walk(dir);
  return out.sort().join("\n");
}

const root = process.getuid?.() === 0;
/** As whom the stranger's commands run: nobody when the tests run as root. */
const user: SpawnOptions = root ? { uid: 65534, gid: 65534 } : {};

describe.each(TOOLCHAINS)(
  "the packed package on $label, installed read-only and used as the README says",
  { timeout: 120_000 },
  (toolchain: Toolchain) => {
    const dir = mkdtempSync(join(tmpdir(), "kedge-packed-"));
    const app = join(dir, "app");
    const home = join(dir, "home");
    // A stranger's shell: none of the npm_* variables `npm test` sets (npm_config_local_prefix would point
    // npx at this repository).
    const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.toLowerCase().startsWith("npm_")));
    const env = {
      ...clean,
      // This toolchain's Node first: npx, npm and every `#!/usr/bin/env node` run on it.
      PATH: `${toolchain.nodeBin}:${clean.PATH ?? ""}`,
      WRANGLER_SEND_METRICS: "false",
      npm_config_audit: "false",
      npm_config_fund: "false",
      npm_config_update_notifier: "false",
      HOME: home,
      npm_config_cache: join(home, ".npm"),
    };
    const run = (command: string, args: string[]) =>
      spawnSync(command, args, { cwd: app, env, encoding: "utf8", ...user, timeout: 60_000 });
    const npx = (...args: string[]) => run("npx", ["--no-install", ...args]);
    /** `run`, without blocking: several at once. */
    const runAsync = (command: string, args: string[], extraEnv: Record<string, string> = {}) =>
      new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
        const child = spawn(command, args, { cwd: app, env: { ...env, ...extraEnv }, ...user, timeout: 60_000 });
        let stdout = "";
        let stderr = "";
        child.stdout?.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
        child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
        child.on("close", (status) => resolve({ status, stdout, stderr }));
      });
    let installed = "";

    beforeAll(async () => {
      await toolchain.ready();
      mkdirSync(app);
      mkdirSync(home);
      // Packed and installed as the repository's user, with npm's own cache (offline-first).
      const asMe = {
        ...env,
        HOME: process.env.HOME,
        npm_config_cache: process.env.npm_config_cache ?? join(process.env.HOME ?? "/root", ".npm"),
      };
      execFileSync("npm", ["pack", "--pack-destination", dir], { cwd: ROOT, env: asMe, stdio: "ignore" });
      const tarball = join(
        dir,
        readdirSync(dir).find((f) => f.endsWith(".tgz"))!,
      );
      writeFileSync(join(app, "package.json"), JSON.stringify({ name: "my-edge", private: true }));
      // The README's install line, with the package from the tarball instead of the registry, and wrangler at
      // this toolchain's release (the README's line takes the latest; on Node 20 its note pins 4.86.0).
      const [install] = readmeBlock("npx kedge init");
      if (install !== "npm install kedge wrangler") throw new Error(`the README installs with ${install}`);
      if (!README.includes("npm install kedge wrangler@4.86.0 --save-exact"))
        throw new Error("the README no longer says how to install on Node 20");
      const args = install
        .split(" ")
        .slice(1)
        .map((a) => (a === "kedge" ? tarball : a === "wrangler" ? `wrangler@${toolchain.wrangler}` : a));
      execFileSync("npm", [...args, "--save-exact", "--prefer-offline"], { cwd: app, env: asMe, stdio: "ignore" });
      const saved = JSON.parse(readFileSync(join(app, "package.json"), "utf8")) as { dependencies: Record<string, string> };
      if (saved.dependencies.wrangler !== toolchain.wrangler) throw new Error(`package.json has wrangler ${saved.dependencies.wrangler}`);
      // The install is the system's: readable, not writable (root's, or read-only for its owner).
      execFileSync("chmod", ["-R", "a+rX,a-w", join(app, "node_modules")]);
      if (root) {
        // mkdtemp's folder is root's alone: the other user must be able to walk into it.
        chmodSync(dir, 0o755);
        for (const d of [app, home]) chownSync(d, 65534, 65534);
      }
      installed = snapshot(join(app, "node_modules", "kedge"));
    }, 240_000);

    afterAll(() => {
      execFileSync("chmod", ["-R", "u+w", dir]);
      if (!process.env.KEDGE_KEEP_PACKED) rmSync(dir, { recursive: true, force: true });
    });

    it("ships built JavaScript, states its Node range, and needs no build at run time", ({ expect }) => {
      const manifest = JSON.parse(readFileSync(join(app, "node_modules", "kedge", "package.json"), "utf8")) as Record<string, unknown>;
      expect(manifest.bin).toEqual({ kedge: "dist/cli.mjs" });
      expect(manifest.engines).toEqual({ node: "^20.19.0 || >=22.12.0" });
      expect(manifest.peerDependencies).toEqual({ wrangler: ">=4.86.0 <5" });
      // One runtime: kedge runs on the Miniflare (and workerd) this wrangler brings, and installs none of its own.
      const runtimes = spawnSync("find", [join(app, "node_modules"), "-name", "package.json", "-path", "*/miniflare/package.json"], {
        encoding: "utf8",
      });
      expect(runtimes.stdout.trim().split("\n")).toHaveLength(1);
      expect(run(join(toolchain.nodeBin, "node"), ["--version"]).stdout.trim()).toBe(`v${toolchain.nodeVersion}`);
      const files = installed.split("\n").map((l) => l.split(" ")[0]!.slice(join(app, "node_modules", "kedge").length + 1));
      expect(files.filter((f) => f.endsWith(".ts"))).toEqual([]);
      expect(files).toEqual(
        expect.arrayContaining(["dist/cli.mjs", "dist/worker.mjs", "LICENSE", "config/kedge.schema.json", "config/rbac/kedge-sync.yaml"]),
      );
      expect(files.some((f) => /bench|fuzz|fault/.test(f))).toBe(false);
    });

    it("answers --help for every command with its own text, --version, and did-you-mean; twice, building nothing", async ({ expect }) => {
      const first = npx("kedge", "--help");
      expect(first.status, first.stderr).toBe(0);
      const commands = [...first.stdout.matchAll(/^ {2}([a-z]+) /gm)].map((m) => m[1]!).filter((c) => c !== "help");
      expect(commands).toEqual([
        "init",
        "dev",
        "validate",
        "sync",
        "diff",
        "promote",
        "rollback",
        "history",
        "explain",
        "status",
        "manifests",
        "completion",
      ]);
      // Each command's help from the bin npx runs (npx's own start would be most of the time), three at a time.
      const bin = join(app, "node_modules", ".bin", "kedge");
      for (let i = 0; i < commands.length; i += 3) {
        const batch = commands.slice(i, i + 3);
        const helps = await Promise.all(batch.map((c) => runAsync(bin, [c, "--help"])));
        batch.forEach((c, j) => {
          expect(helps[j]!.status, c).toBe(0);
          expect(helps[j]!.stdout).toContain(`Usage: kedge ${c} [options]`);
          expect(helps[j]!.stdout).toContain("Exit codes:");
        });
      }
      expect(npx("kedge", "--version").stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
      const typo = npx("kedge", "sinc");
      expect([typo.status, typo.stderr]).toEqual([2, expect.stringContaining("(Did you mean sync?)")]);
      expect(npx("kedge", "--help").status).toBe(0);
      expect(snapshot(join(app, "node_modules", "kedge"))).toBe(installed);
    });

    it("runs the README's first hour: init, validate, dev serving the project, and wrangler bundling it", async ({ expect }) => {
      const [, ...steps] = readmeBlock("npx kedge init");
      expect(steps).toEqual(["npx kedge init", "npx kedge dev"]);
      const init = npx("kedge", "init");
      expect(init.status, init.stderr).toBe(0);
      expect(init.stdout).toContain("config/kedge.yaml");
      expect(readFileSync(join(app, "wrangler.toml"), "utf8")).toContain('main = "node_modules/kedge/dist/worker.mjs"');
      expect(readFileSync(join(app, "config", "kedge.yaml"), "utf8")).toMatch(
        /^# yaml-language-server: \$schema=\.\.\/node_modules\/kedge\/config\/kedge\.schema\.json/,
      );
      expect(npx("kedge", "init").status).toBe(2);
      // A nested folder, and one reached through a symbolic link (as /tmp is on macOS): paths relative to
      // the file that names them, never this machine's.
      symlinkSync(app, join(dir, "linked"));
      for (const [nested, up] of [
        [join("nested", "edge"), "../../"],
        [join(dir, "linked", "other"), "../"],
      ] as const) {
        const made = npx("kedge", "init", nested);
        expect(made.status, made.stderr).toBe(0);
        const project = join(app, nested.startsWith(dir) ? "other" : nested);
        const main = /^main = "(.*)"$/m.exec(readFileSync(join(project, "wrangler.toml"), "utf8"))?.[1];
        expect(main).toBe(`${up}node_modules/kedge/dist/worker.mjs`);
        expect(statSync(join(project, main!)).isFile()).toBe(true);
        expect(readFileSync(join(project, "config", "kedge.yaml"), "utf8")).toMatch(
          new RegExp(
            `^# yaml-language-server: \\$schema=\\.\\./${up.replaceAll(".", "\\.")}node_modules/kedge/config/kedge\\.schema\\.json\n`,
          ),
        );
      }
      const validate = npx("kedge", "validate");
      expect([validate.status, validate.stdout]).toEqual([0, expect.stringContaining("config: valid")]);

      const port = await freePort();
      const dev = spawn("npx", ["--no-install", "kedge", "dev", "--port", String(port)], { cwd: app, env, ...user, detached: true });
      let output = "";
      dev.stdout!.on("data", (d: Buffer) => (output += d.toString()));
      dev.stderr!.on("data", (d: Buffer) => (output += d.toString()));
      const exited = new Promise<number | null>((resolve) => dev.on("exit", resolve));
      try {
        const deadline = Date.now() + 60_000;
        while (!output.includes("kedge is serving") && dev.exitCode === null && Date.now() < deadline)
          await new Promise((r) => setTimeout(r, 200));
        expect(output).toContain(`kedge is serving on http://127.0.0.1:${port}`);
        const answer = await getWithHost(port, "app.example.com");
        expect(answer.status, answer.body).toBe(200);
        expect((JSON.parse(answer.body) as { endpoint: string }).endpoint).toBe("local/127.0.0.1:9901");
        const token = /Bearer ([\w-]+)/.exec(output)?.[1];
        const page = await fetch(`http://127.0.0.1:${port}/.well-known/kedge/status`, {
          headers: { authorization: `Bearer ${token}`, accept: "text/html" },
        });
        expect(page.status).toBe(200);
        expect(await page.text()).toContain("kedge — table kedge@");
      } finally {
        // A dev that already ended (its failure is in `output`, which the assertions above print) has no group left.
        if (dev.exitCode === null) process.kill(-dev.pid!, "SIGINT");
        await exited;
      }
      // Ctrl-C reaches the whole process group, as a terminal sends it: kedge stops workerd and the origin.
      // (npx's own status is that of the `sh -c` it runs kedge in: dash ends itself by the signal after its
      // child, whatever the child's code; start-command and live-clusters hold kedge's exit 0.)
      expect(output).toContain("stopping kedge and the origins");
      await expect(fetch(`http://127.0.0.1:${port}/`)).rejects.toThrow();
      const bundled = run("npx", ["--no-install", "wrangler", "deploy", "--dry-run", "--outdir", join(app, "out")]);
      expect(bundled.status, bundled.stderr).toBe(0);
      expect(bundled.stdout).toContain("env.TRAFFIC (TrafficStore)");
      expect(snapshot(join(app, "node_modules", "kedge"))).toBe(installed);
    });

    it("refuses unsafe pushes: a schema error, a drop to nothing, a placeholder KV namespace; diff exits 1 on a change", ({ expect }) => {
      const routeFile = join(app, "config", "clusters", "local", "app.yaml");
      const app0 = readFileSync(routeFile, "utf8");
      expect(npx("kedge", "sync").status).toBe(0);
      expect(npx("kedge", "diff").status).toBe(0);
      writeFileSync(routeFile, app0.replace("hostname: app.example.com", "hostname: www.example.com"));
      const diff = npx("kedge", "diff");
      expect([diff.status, diff.stdout]).toEqual([1, expect.stringContaining("dry run:")]);
      writeFileSync(
        routeFile,
        `${app0}---\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: { name: typo, namespace: default }\nspec: { parentRefs: [{ name: edge }], rulez: [] }\n`,
      );
      const invalid = npx("kedge", "sync");
      expect(invalid.status).toBe(1);
      expect(invalid.stderr).toContain("1 object above fails its schema, as the API server would have refused it; nothing written");
      expect(npx("kedge", "sync", "--allow-invalid").status).toBe(0);
      writeFileSync(
        routeFile,
        app0
          .split("\n---\n")
          .filter((doc) => !doc.includes("kind: HTTPRoute"))
          .join("\n---\n"),
      );
      const drop = npx("kedge", "sync");
      expect(drop.status).toBe(1);
      expect(drop.stderr).toMatch(
        /this push would remove 1 of 1 served rule and 1 of 1 served host .*nothing written \(pass --force to push it\)/,
      );
      expect(npx("kedge", "sync", "--force").status).toBe(0);
      const remote = npx("kedge", "sync", "--remote");
      expect(remote.status).toBe(2);
      expect(remote.stderr).toMatch(
        /^error: --remote: wrangler\.toml \[\[kv_namespaces\]\] ROUTES has id "REPLACE_WITH_ROUTES_NAMESPACE_ID", not a KV namespace id/,
      );
      expect(remote.stdout).toBe("");
    });

    it("pushes, lists and rolls back through this wrangler against a Cloudflare API stand-in: KV as docs/storage.md says", async ({
      expect,
    }) => {
      const account = "c".repeat(32);
      const namespace = "d".repeat(32);
      const api = await startCloudflareApi({
        accounts: { [account]: { name: "stranger", namespaces: [namespace] } },
        tokens: { "deploy-token": { accounts: [account], kv: "edit" } },
      });
      const wranglerToml = join(app, "wrangler.toml");
      const scaffolded = readFileSync(wranglerToml, "utf8");
      // The README's deployment steps: the Worker's route for the hostname, the ROUTES namespace's id in place of
      // init's placeholder.
      writeFileSync(
        wranglerToml,
        `routes = [{ pattern = "app.example.com/*", zone_name = "example.com" }]\n${scaffolded.replace(/id = "REPLACE_WITH_ROUTES_NAMESPACE_ID"/, `id = "${namespace}"`)}`,
      );
      const credentials = { CLOUDFLARE_API_BASE_URL: api.url, CLOUDFLARE_API_TOKEN: "deploy-token", CLOUDFLARE_ACCOUNT_ID: account };
      const kedge = (...args: string[]) => runAsync(join(app, "node_modules", ".bin", "kedge"), args, credentials);
      const routeFile = join(app, "config", "clusters", "local", "app.yaml");
      const left = readFileSync(routeFile, "utf8");
      // The route file as `kedge init` writes it (the test above left it without its HTTPRoute), its endpoint
      // moved from this machine to an address the edge reaches, as a deployment's is.
      const route = readFileSync(join(ROOT, "scripts", "cli", "templates", "config", "clusters", "local", "app.yaml"), "utf8").replace(
        'addresses: ["127.0.0.1"]',
        'addresses: ["203.0.113.7"]',
      );
      expect(route).toContain("203.0.113.7");
      writeFileSync(routeFile, route);
      try {
        const first = await kedge("sync", "--remote");
        expect(first.status, first.stderr).toBe(0);
        const v1 = new RegExp(`wrote table kedge@([0-9a-f]{20}) to remote KV namespace ${namespace}`).exec(first.stdout)?.[1];
        expect(v1, first.stdout).toBeDefined();
        // A second version: the route gains a rule for /api.
        writeFileSync(
          routeFile,
          route.replace(
            "    - backendRefs: [{ name: app, port: 80 }]",
            "    - matches: [{ path: { type: PathPrefix, value: /api } }]\n      backendRefs: [{ name: app, port: 80 }]\n    - backendRefs: [{ name: app, port: 80 }]",
          ),
        );
        expect(readFileSync(routeFile, "utf8")).not.toBe(route);
        const second = await kedge("sync", "--remote");
        expect(second.status, second.stderr).toBe(0);
        const v2 = /wrote table kedge@([0-9a-f]{20})/.exec(second.stdout)?.[1];
        expect(v2).toBeDefined();
        expect(v2).not.toBe(v1);
        const history = await kedge("history", "--remote");
        expect(history.status, history.stderr).toBe(0);
        expect(history.stdout).toMatch(new RegExp(`\\* ${v2}[\\s\\S]*${v1}`));
        const rollback = await kedge("rollback", "--remote");
        expect(rollback.status, rollback.stderr).toBe(0);
        // docs/storage.md: one blob per version, the pointer, the history; no lease once the commands ended.
        const kv = api.texts(namespace);
        expect(Object.keys(kv)).toEqual([`table/kedge/${v1}`, `table/kedge/${v2}`, "table/kedge/current", "table/kedge/history"].sort());
        expect(JSON.parse(kv["table/kedge/current"]!)).toMatchObject({
          version: v1,
          schemaVersion: expect.any(Number),
          rolledBack: { from: v2 },
        });
        const kept = (JSON.parse(kv["table/kedge/history"]!) as { version: string }[]).map((h) => h.version);
        expect(kept).toEqual([v2, v1]);
        expect(JSON.parse(kv[`table/kedge/${v2}`]!)).toMatchObject({ version: v2 });
        expect(api.unknown).toEqual([]);
      } finally {
        writeFileSync(wranglerToml, scaffolded);
        writeFileSync(routeFile, left);
        await api.close();
      }
    });
  },
);
