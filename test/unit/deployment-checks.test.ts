/** What `sync --remote` says about the deployment it writes for: the table the Worker serves, the routes it lacks. */
import { describe, it } from "vitest";
import { parse } from "yaml";
import type { VpcNetworkBlock } from "../../scripts/config/wrangler-config";
import { missingRoutesBlock, routeCovers, tableNameProblem } from "../../scripts/checks/deployment-checks";
import { networkBindingProblems } from "../../scripts/checks/network-bindings";
import { parseEdgeConfig } from "../../src/compile/input/edge-config";
import { type SyncOptions, syncCommand } from "../../scripts/cli/commands/sync";
import { storeTarget } from "../../scripts/cli/flags";
import { parseOptions } from "../../scripts/cli/program";
import { compileYaml } from "../support/compile-fixture";
import { edgeConfig, gatewayAndRoute, service, yamlDocs } from "../support/manifests";

const facts = (routes: string[], servedTable = "kedge", vpcNetworks: VpcNetworkBlock[] = [], topLevelVpcNetworks: string[] = []) => ({
  kvNamespaceId: "ns",
  servedTable,
  routes,
  routesDeclared: routes.length > 0,
  vpcNetworks,
  topLevelVpcNetworks,
});

const TUNNEL = "550e8400-e29b-41d4-a716-446655440000";

/** kedge.yaml with clusters east and west reached through VPC_EAST and VPC_WEST, and south by its addresses. */
const NETWORK_EDGE = parseEdgeConfig(
  parse(`apiVersion: kedge.dev/v1alpha1
kind: EdgeConfig
metadata: { name: t }
spec:
  gatewayClassName: kedge
  clusters:
    - { name: east, endpoints: { network: VPC_EAST } }
    - { name: west, endpoints: { network: VPC_WEST } }
    - { name: south }
`),
  "kedge.yaml",
);

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
    // Routes exist: the entries to add to them (a second routes key would be a TOML error).
    expect(missingRoutesBlock(facts(["shop.example.com/*"]), table, "wrangler.toml")).toBe(
      `the Worker's routes in wrangler.toml do not cover hostname api.example.org; requests for it never reach kedge. Add to its routes (check each zone_name):
  { pattern = "api.example.org/*", zone_name = "example.org" },`,
    );
    // None: the whole key, where wrangler reads it (above any table header, or in the environment).
    expect(missingRoutesBlock(facts([]), table, "wrangler.toml")).toBe(
      `the Worker's routes in wrangler.toml do not cover hostnames api.example.org, shop.example.com; requests for them never reach kedge. Add to the top of the file, above the first [table] header (check each zone_name):
routes = [
  { pattern = "api.example.org/*", zone_name = "example.org" },
  { pattern = "shop.example.com/*", zone_name = "example.com" },
]`,
    );
    expect(missingRoutesBlock(facts([]), table, "wrangler.toml", "production")).toContain(
      "Add to [env.production] (check each zone_name):\nroutes = [",
    );
    expect(missingRoutesBlock(facts([]), table, "wrangler.jsonc")).toContain(
      '    { "pattern": "shop.example.com/*", "zone_name": "example.com" },',
    );
    expect(missingRoutesBlock(facts(["*.example.com/*", "api.example.org/*"]), table, "wrangler.toml")).toBeNull();
  });

  it("names a routes key uncommented below a [table] header, where wrangler does not read it", async ({ expect }) => {
    const { table } = await compileYaml(edgeConfig("t"), {
      c1: yamlDocs(
        gatewayAndRoute({
          namespace: "shop",
          routeHostnames: ["shop.example.com"],
          rules: "    - backendRefs: [{ name: web, port: 8080 }]",
        }),
        service("web", "shop"),
      ),
    });
    const block = missingRoutesBlock({ ...facts([]), misplacedRoutes: ["observability"] }, table, "wrangler.toml");
    expect(block).toContain(
      "wrangler.toml has a routes key inside [observability], where wrangler does not read it as the Worker's routes (in TOML a key below a [table] header belongs to that table): move it above the first [table] header",
    );
    // And the real entry it needs, never an empty list.
    expect(block).toContain('routes = [\n  { pattern = "shop.example.com/*", zone_name = "example.com" },\n]');
  });

  it("a table that answers any hostname, with no routes, says that no request reaches kedge and how to name them", async ({ expect }) => {
    const { table } = await compileYaml(edgeConfig("t"), {
      c1: yamlDocs(gatewayAndRoute({ namespace: "shop", rules: "    - backendRefs: [{ name: web, port: 8080 }]" }), service("web", "shop")),
    });
    const block = missingRoutesBlock(facts([]), table, "wrangler.toml");
    expect(block).toMatch(
      /^the table answers any hostname \(a listener and a route without hostnames\), and wrangler.toml has no routes: no request reaches kedge/,
    );
    expect(block).toContain('  { pattern = "app.example.com/*", zone_name = "example.com" },');
    expect(missingRoutesBlock(facts(["shop.example.com/*"]), table, "wrangler.toml")).toBeNull();
  });

  it("names every VPC network binding kedge.yaml uses that the wrangler config lacks, with the block to add", ({ expect }) => {
    const east = { binding: "VPC_EAST", tunnel_id: TUNNEL };
    expect(networkBindingProblems(NETWORK_EDGE, facts([], "t", [east]), "wrangler.toml", undefined, "wrangler.toml")).toEqual([
      `cluster west is reached through the VPC network binding VPC_WEST, which wrangler.toml lacks; the Worker could not reach its pods. Add:
[[vpc_networks]]
binding = "VPC_WEST"
tunnel_id = "<the tunnel UUID of west's cloudflared>"   # or network_id = "cf1:vnet:<virtual network UUID>"
remote = true`,
    ]);
    const both = [east, { binding: "VPC_WEST", network_id: "cf1:vnet:6f1c2a9e-0b7d-4c8e-9a51-2d3e4f5a6b7c" }];
    expect(networkBindingProblems(NETWORK_EDGE, facts([], "t", both), "wrangler.toml", undefined, "wrangler.toml")).toEqual([]);
  });

  it("an environment does not inherit vpc_networks: the block goes into the environment", ({ expect }) => {
    const problems = networkBindingProblems(
      NETWORK_EDGE,
      facts([], "t", [], ["VPC_EAST", "VPC_WEST"]),
      "wrangler.jsonc",
      "production",
      'environment "production" of wrangler.jsonc',
    );
    expect(problems).toHaveLength(2);
    expect(problems[0]).toContain(
      'VPC_EAST, which environment "production" of wrangler.jsonc lacks (the top level declares it, but environments do not inherit vpc_networks)',
    );
    expect(problems[0]).toContain(
      `"env": { "production": { "vpc_networks": [{ "binding": "VPC_EAST", "tunnel_id": "<the tunnel UUID of east's cloudflared>", "remote": true }] } }`,
    );
  });

  it("a block needs exactly one of tunnel_id and network_id, each in its form", ({ expect }) => {
    const check = (east: VpcNetworkBlock) =>
      networkBindingProblems(
        NETWORK_EDGE,
        facts([], "t", [east, { binding: "VPC_WEST", network_id: "cf1:network" }]),
        "wrangler.toml",
        undefined,
        "wrangler.toml",
      );
    expect(check({ binding: "VPC_EAST", tunnel_id: TUNNEL, network_id: "cf1:network" })).toEqual([
      "the vpc_networks binding VPC_EAST of wrangler.toml needs exactly one of tunnel_id or network_id",
    ]);
    expect(check({ binding: "VPC_EAST" })[0]).toContain("needs exactly one of tunnel_id or network_id");
    expect(check({ binding: "VPC_EAST", tunnel_id: "<your tunnel id>" })[0]).toContain('tunnel_id "<your tunnel id>" is not a tunnel UUID');
    expect(check({ binding: "VPC_EAST", network_id: "vnet-1" })[0]).toContain("is neither cf1:network nor cf1:vnet:<virtual network UUID>");
  });

  it("--env names the wrangler environment", ({ expect }) => {
    expect(storeTarget(parseOptions<SyncOptions>(syncCommand, ["--remote", "--env", "staging"]))).toMatchObject({
      target: "remote",
      env: "staging",
    });
    expect(storeTarget(parseOptions<SyncOptions>(syncCommand, ["--env=eu"]))).toMatchObject({ target: "local", env: "eu" });
  });
});
