/**
 * kedge as a team installs it: the package packed with `npm pack`, installed from the tarball into a fresh
 * folder outside the repository, and run as `npx kedge` there on a kedge config and a wrangler config
 * (dependencies come from the npm registry, or npm's cache, as for any package).
 */
import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, it } from "vitest";
import { ROOT } from "./harness";

const npm = process.platform === "win32" ? "npm.cmd" : "npm";
const env = { ...process.env, WRANGLER_SEND_METRICS: "false", npm_config_audit: "false", npm_config_fund: "false" };

describe("the installed kedge CLI", () => {
  const dir = mkdtempSync(join(tmpdir(), "kedge-installed-"));
  const app = join(dir, "app");
  const kedge = (...args: string[]) => spawnSync("npx", ["--no-install", "kedge", ...args], { cwd: app, env, encoding: "utf8" });

  beforeAll(() => {
    execFileSync(npm, ["pack", "--pack-destination", dir], { cwd: ROOT, env, stdio: "ignore" });
    const tarball = readdirSync(dir).find((f) => f.endsWith(".tgz"))!;
    cpSync(join(ROOT, "config"), join(app, "config"), { recursive: true });
    cpSync(join(ROOT, "wrangler.toml"), join(app, "wrangler.toml"));
    writeFileSync(join(app, "package.json"), JSON.stringify({ name: "edge-config", private: true, type: "module" }));
    execFileSync(npm, ["install", "--prefer-offline", join(dir, tarball)], { cwd: app, env, stdio: "ignore" });
  }, 240_000);

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("syncs a config folder into local state, lists the version, and shows a change before writing it", ({ expect }) => {
    const synced = kedge("sync", "--config", "config", "--local", "--persist-to", "state");
    expect(synced.status, synced.stderr).toBe(0);
    expect(synced.stdout).toMatch(/wrote table kedge@\w+ to local state/);
    const history = kedge("history", "--config", "config", "--persist-to", "state");
    expect(history.status).toBe(0);
    expect(history.stdout).toMatch(/^\* \w{20} {2}\S+ {2}15 rules, 11 backends$/m);
    const routes = join(app, "config", "clusters", "us-east", "routes.yaml");
    writeFileSync(routes, readFileSync(routes, "utf8").replace("weight: 80", "weight: 7"));
    const diff = kedge("diff", "--config", "config", "--persist-to", "state");
    // As kubectl diff: exit 1 when the table would change, 0 when the edge already serves it.
    expect(diff.status, diff.stderr).toBe(1);
    expect(diff.stdout).toContain("rule.backendRefs[0].weight: 80 → 7");
    expect(kedge("history", "--config", "config", "--persist-to", "state").stdout).toContain("(1 kept versions");
    expect(kedge("sync", "--config", "config", "--persist-to", "state").status).toBe(0);
    expect(kedge("diff", "--config", "config", "--persist-to", "state").status).toBe(0);
    const back = kedge("rollback", "--dry-run", "--config", "config", "--persist-to", "state");
    expect(back.stdout).toMatch(/dry run: table kedge would move \w+ → \w+ \(nothing written\)/);
    expect(back.stdout).toContain("rule.backendRefs[0].weight: 7 → 80");
    // Nothing moved: the newer version is still the served one.
    expect(kedge("history", "--config", "config", "--persist-to", "state").stdout).toMatch(/^\* \w{20} .*\n {2}\w{20} /m);
    const explained = kedge(
      "explain",
      "--host",
      "bookinfo.example.com",
      "--path",
      "/productpage",
      "--config",
      "config",
      "--persist-to",
      "state",
    );
    expect(explained.status, explained.stderr).toBe(0);
    expect(explained.stdout).toContain("rule us-east/bookinfo/productpage/rule/0@80 (HTTPRoute bookinfo/productpage, listener port 80)");
    expect(explained.stdout).toMatch(/▶ us-east\/bookinfo\/productpage\/rule\/0@80\/match\/0: chosen/);
    expect(explained.stdout).toContain("backend CompositeBackend/bookinfo/productpage:9080: weight 1, 100% of new requests");
    // The health record the Worker's health checks write, put where kedge status reads it.
    const record = JSON.stringify({ updatedAt: "2026-11-24T10:00:00.000Z", unhealthy: ["eu-west/127.0.0.1:9201"] });
    const put = [
      "--no-install",
      "wrangler",
      "kv",
      "key",
      "put",
      "health/kedge",
      record,
      "--namespace-id",
      "kedge-routes-local",
      "--local",
      "--persist-to",
      "state",
    ];
    expect(spawnSync("npx", put, { cwd: app, env, encoding: "utf8" }).status).toBe(0);
    const status = kedge("status", "--config", "config", "--persist-to", "state");
    expect(status.status, status.stderr).toBe(0);
    expect(status.stdout).toMatch(/^table kedge@\w{20} in local state /);
    expect(status.stdout).toContain("active health: record of 2026-11-24T10:00:00.000Z");
    expect(status.stdout).toContain("cluster eu-west: 5 of 6 endpoints ready, unhealthy: eu-west/127.0.0.1:9201");
    expect(status.stdout).toContain("cluster us-east: 7 of 7 endpoints ready");
    const unknown = kedge("deploy-everything");
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toContain("unknown command 'deploy-everything'");
  });
});
