/** What `sync --remote` says about the deployment it writes for: the table the Worker serves, the routes it lacks. */
import { describe, it } from "vitest";
import { missingRoutesBlock, routeCovers, tableNameProblem } from "../../scripts/sync/deployment-checks";
import { parseSyncArgs } from "../../scripts/sync/args";
import { compileYaml } from "../support/compile-fixture";
import { edgeConfig, gatewayAndRoute, service, yamlDocs } from "../support/manifests";

const facts = (routes: string[], servedTable = "kedge") => ({ kvNamespaceId: "ns", servedTable, routes });

describe("deployment checks", () => {
  it("a table the Worker does not serve is named, with both names", ({ expect }) => {
    expect(tableNameProblem(facts([], "kedge"), "kedge", "wrangler.toml")).toBeNull();
    expect(tableNameProblem(facts([], "edge-eu"), "shop", 'environment "eu" of wrangler.jsonc')).toBe(
      'the Worker of environment "eu" of wrangler.jsonc serves table "edge-eu" (vars.KEDGE_TABLE), but this config is table "shop" (kedge.yaml metadata.name): it would be written and never served. Make them the same',
    );
  });

  it("route patterns cover hosts as Cloudflare matches them", ({ expect }) => {
    expect(routeCovers("shop.example.com/*", "shop.example.com")).toBe(true);
    expect(routeCovers("*.example.com/*", "shop.example.com")).toBe(true);
    expect(routeCovers("*example.com/*", "example.com")).toBe(true);
    expect(routeCovers("*.example.com/*", "*.example.com")).toBe(true);
    expect(routeCovers("*.example.com/*", "example.com")).toBe(false);
    expect(routeCovers("shop.example.com/*", "api.example.com")).toBe(false);
    expect(routeCovers("*.example.com/*", "shop.notexample.com")).toBe(false);
  });

  it("prints the routes block the served hostnames need, in the config's form", async ({ expect }) => {
    const { table } = await compileYaml(edgeConfig("t"), {
      c1: yamlDocs(
        gatewayAndRoute({
          namespace: "shop",
          routeHostnames: ["shop.example.com", "api.example.org"],
          rules: "    - backendRefs: [{ name: web, port: 8080 }]",
        }),
        service("web", "shop"),
      ),
    });
    expect(missingRoutesBlock(facts(["shop.example.com/*"]), table, "wrangler.toml")).toBe(
      `the Worker's routes in wrangler.toml do not cover hostname api.example.org; requests for it never reach kedge. Add (check each zone_name):
routes = [
  { pattern = "api.example.org/*", zone_name = "example.org" },
]`,
    );
    expect(missingRoutesBlock(facts([]), table, "wrangler.jsonc")).toContain(
      '    { "pattern": "shop.example.com/*", "zone_name": "example.com" },',
    );
    expect(missingRoutesBlock(facts(["*.example.com/*", "api.example.org/*"]), table, "wrangler.toml")).toBeNull();
  });

  it("--env names the wrangler environment", ({ expect }) => {
    expect(parseSyncArgs(["--remote", "--env", "staging"]).env).toBe("staging");
    expect(parseSyncArgs(["--env=eu"]).env).toBe("eu");
  });
});
