/**
 * Where kedge looks for what it reads, as a user meets it: run from inside the config folder it reads the
 * kedge.yaml beside it (and the project's wrangler config and state one folder up), saying so; from the project
 * folder it reads config/ without a word; with no kubeconfig at all, a live cluster's error says that none was
 * found, where it looked and how to fix it, never the client library's placeholder context.
 */
import { copyFileSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, it } from "vitest";
import { edgeConfig, gatewayAndRoute, service, yamlDocs } from "../support/manifests";
import { ROOT, RUN_BUNDLED, runProcess, Workspace } from "./harness";

const kedge = (cwd: string, args: string[], env: Record<string, string | undefined> = {}) =>
  runProcess(process.execPath, [RUN_BUNDLED, join(ROOT, "scripts", "cli", "main.ts"), ...args], { cwd, env });

describe("where kedge looks", { timeout: 60_000 }, () => {
  const ws = new Workspace();
  afterAll(() => ws.remove());
  ws.write({
    "kedge.yaml": edgeConfig("found"),
    "clusters/c1/app.yaml": yamlDocs(
      gatewayAndRoute({ namespace: "shop", hostname: "shop.example.com", rules: "    - backendRefs: [{ name: web, port: 8080 }]" }),
      service("web", "shop"),
    ),
  });
  // The project folder: the wrangler config beside config/.
  copyFileSync(join(ROOT, "wrangler.toml"), join(ws.dir, "wrangler.toml"));

  it("run from inside config/, reads the kedge.yaml beside it and the project's wrangler config and state above, and says so", async ({
    expect,
  }) => {
    const validated = await kedge(ws.config, ["validate"]);
    expect(validated.code, validated.stderr).toBe(0);
    expect(validated.stderr).toContain("using kedge.yaml in the current folder (./kedge.yaml; --config DIR reads another)");
    const synced = await kedge(ws.config, ["sync", "--json"]);
    expect(synced.code, synced.stderr).toBe(0);
    expect(JSON.parse(synced.stdout).table.name).toBe("found");
    // The state is the project's (where `kedge dev` run from the project folder reads it), not config/.wrangler.
    const status = await kedge(ws.dir, ["status", "-o", "json"]);
    expect(JSON.parse(status.stdout)).toMatchObject({ table: "found", served: JSON.parse(synced.stdout).table.version });
    expect(status.stderr).toBe("");
  });

  it("with no kubeconfig at all, says none was found, where it looked and how to fix it", async ({ expect }) => {
    const home = join(ws.dir, "empty-home");
    mkdirSync(home, { recursive: true });
    const live = join(ws.dir, "live");
    mkdirSync(join(live, "clusters"), { recursive: true });
    writeFileSync(
      join(live, "kedge.yaml"),
      `apiVersion: kedge.dev/v1alpha1
kind: EdgeConfig
metadata: { name: live }
spec: { gatewayClassName: kedge, clusters: [{ name: prod, kubeContext: prod-admin }] }
`,
    );
    const run = await kedge(ws.dir, ["validate", "--config", live, "-o", "json"], { HOME: home, KUBECONFIG: undefined });
    expect(run.code).toBe(2);
    const { error } = JSON.parse(run.stdout) as { error: { message: string; fix: string } };
    expect(error.message).toBe(
      `cluster prod: no kubeconfig found to read context prod-admin from ($KUBECONFIG is not set and ${join(home, ".kube", "config")} does not exist)`,
    );
    expect(error.fix).toMatch(/^point \$KUBECONFIG at your kubeconfig, or name it in kedge\.yaml \(clusters\[\]\.kubeconfig\)/);
    expect(run.stderr).not.toContain("loaded-context");
  });
});
