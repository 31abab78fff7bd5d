/**
 * The Worker's local options read from wrangler.toml without importing wrangler agree with what wrangler
 * itself hands Miniflare (`wrangler dev`), for this project's wrangler.toml and a richer one, and this
 * project's wrangler.toml uses no kind of binding the reader leaves out.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { unstable_getMiniflareWorkerOptions, unstable_readConfig } from "wrangler";
import { findWranglerConfig, readCrons, readLocalWorkerOptions, readWranglerFacts } from "../../scripts/config/wrangler-config";

const ROOT = resolve(import.meta.dirname, "..", "..");
const READ = ["compatibilityDate", "compatibilityFlags", "bindings", "kvNamespaces", "durableObjects"] as const;

const RICHER = `name = "other"
main = "src/index.ts"
compatibility_date = "2026-01-15"
compatibility_flags = ["nodejs_compat"]

[vars]
KEDGE_TABLE = "edge-eu"
LIMITS = { max = 3 }

[[kv_namespaces]]
binding = "ROUTES"
id = "abc123"

[[kv_namespaces]]
binding = "OTHER"
id = "def456"

[[durable_objects.bindings]]
name = "SESSIONS"
class_name = "SessionStore"

[[durable_objects.bindings]]
name = "LEGACY"
class_name = "LegacyStore"

[[migrations]]
tag = "v1"
new_classes = ["LegacyStore"]

[[migrations]]
tag = "v2"
new_sqlite_classes = ["SessionStore"]

[[vpc_networks]]
binding = "VPC_EAST"
tunnel_id = "550e8400-e29b-41d4-a716-446655440000"
remote = true

[env.staging]
compatibility_flags = ["nodejs_compat", "no_global_navigator"]
routes = [{ pattern = "staging.example.com/*", zone_name = "example.com" }]

[env.staging.vars]
KEDGE_TABLE = "edge-staging"

[[env.staging.kv_namespaces]]
binding = "ROUTES"
id = "staging-ns"

[[env.staging.durable_objects.bindings]]
name = "SESSIONS"
class_name = "SessionStore"

[[env.staging.vpc_networks]]
binding = "VPC_WEST"
network_id = "cf1:vnet:6f1c2a9e-0b7d-4c8e-9a51-2d3e4f5a6b7c"
remote = true
`;

/** The same Worker as RICHER in wrangler.jsonc's form: comments, trailing commas, a "//" inside a string. */
const RICHER_JSONC = `// The Worker kedge deploys; see README: deploying.
{
  "name": "other",
  "main": "src/index.ts", /* the entry */
  "compatibility_date": "2026-01-15",
  "compatibility_flags": ["nodejs_compat",],
  "vars": { "KEDGE_TABLE": "edge-eu", "LIMITS": { "max": 3 }, "DOCS": "https://example.com//x" },
  "kv_namespaces": [
    { "binding": "ROUTES", "id": "abc123" },
    { "binding": "OTHER", "id": "def456" }, // trailing comma next
  ],
  "durable_objects": {
    "bindings": [
      { "name": "SESSIONS", "class_name": "SessionStore" },
      { "name": "LEGACY", "class_name": "LegacyStore" },
    ],
  },
  "migrations": [
    { "tag": "v1", "new_classes": ["LegacyStore"] },
    { "tag": "v2", "new_sqlite_classes": ["SessionStore"] },
  ],
  "vpc_networks": [{ "binding": "VPC_EAST", "tunnel_id": "550e8400-e29b-41d4-a716-446655440000", "remote": true }],
  "env": {
    "staging": {
      "compatibility_flags": ["nodejs_compat", "no_global_navigator"],
      "routes": [{ "pattern": "staging.example.com/*", "zone_name": "example.com" }],
      "vars": { "KEDGE_TABLE": "edge-staging" },
      "kv_namespaces": [{ "binding": "ROUTES", "id": "staging-ns" }],
      "durable_objects": { "bindings": [{ "name": "SESSIONS", "class_name": "SessionStore" }] },
      "vpc_networks": [{ "binding": "VPC_WEST", "network_id": "cf1:vnet:6f1c2a9e-0b7d-4c8e-9a51-2d3e4f5a6b7c", "remote": true }],
    },
  },
}
`;

/** wrangler's own options, only the fields the reader produces. */
function wranglers(configPath: string, env?: string): Record<string, unknown> {
  const { workerOptions } = unstable_getMiniflareWorkerOptions(configPath, env);
  return Object.fromEntries(READ.map((k) => [k, (workerOptions as Record<string, unknown>)[k]]));
}

const isEmpty = (v: unknown): boolean =>
  v === undefined ||
  (Array.isArray(v) && v.length === 0) ||
  (typeof v === "object" && v !== null && !Array.isArray(v) && Object.values(v).every(isEmpty));

describe("readLocalWorkerOptions", () => {
  const dir = mkdtempSync(join(tmpdir(), "kedge-wrangler-config-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("reads this project's wrangler.toml as wrangler does", () => {
    const config = join(ROOT, "wrangler.toml");
    expect(readLocalWorkerOptions(config)).toEqual(wranglers(config));
  });

  it("reads vars, several KV namespaces and Durable Objects with and without SQLite as wrangler does", () => {
    const config = join(dir, "wrangler.toml");
    writeFileSync(config, RICHER);
    const ours = readLocalWorkerOptions(config);
    expect(ours).toEqual(wranglers(config));
    expect(ours.durableObjects).toEqual({
      SESSIONS: { className: "SessionStore", useSQLite: true },
      LEGACY: { className: "LegacyStore", useSQLite: false },
    });
  });

  it("leaves out nothing this project's wrangler.toml binds", () => {
    const { workerOptions } = unstable_getMiniflareWorkerOptions(join(ROOT, "wrangler.toml"));
    // modulesRules and rootPath: how wrangler finds modules; the gateway hands Miniflare one bundled module.
    // cronTriggers (newer wrangler lists them here): kedge fires them itself, from readCrons (dev/local-cron.ts).
    const notBindings = ["modulesRules", "rootPath", "cronTriggers"];
    const bound = Object.entries(workerOptions)
      .filter(([k, v]) => !notBindings.includes(k) && !isEmpty(v))
      .map(([k]) => k);
    expect(bound.filter((k) => !(READ as readonly string[]).includes(k))).toEqual([]);
    const crons = (workerOptions as { cronTriggers?: string[] }).cronTriggers ?? readCrons(join(ROOT, "wrangler.toml"));
    expect(crons).toEqual(readCrons(join(ROOT, "wrangler.toml")));
  });

  for (const [form, text] of [
    ["wrangler.toml", RICHER],
    ["wrangler.json", JSON.stringify(JSON.parse(RICHER_JSONC.replace(/\/\/ [^\n]*|\/\*[^*]*\*\//g, "").replace(/,(\s*[}\]])/g, "$1")))],
    ["wrangler.jsonc", RICHER_JSONC],
  ] as const) {
    it(`reads ${form}, top level and [env.staging], as wrangler does`, () => {
      const sub = mkdtempSync(join(dir, "form-"));
      const config = join(sub, form);
      writeFileSync(config, text);
      expect(findWranglerConfig(sub)).toBe(config);
      for (const env of [undefined, "staging"]) {
        expect(readLocalWorkerOptions(config, env), `${form} ${env ?? "top"}`).toEqual(wranglers(config, env));
        const theirs = unstable_readConfig({ config, env });
        const facts = readWranglerFacts(config, env);
        expect(facts.kvNamespaceId).toBe(theirs.kv_namespaces.find((k: { binding: string }) => k.binding === "ROUTES")?.id);
        expect(facts.servedTable).toBe(theirs.vars.KEDGE_TABLE);
        expect(facts.routes).toEqual(
          theirs.routes?.map((r: string | { pattern: string }) => (typeof r === "string" ? r : r.pattern)) ?? [],
        );
        // vpc_networks are not inherited: the environment has only its own.
        expect(facts.vpcNetworks).toEqual(
          theirs.vpc_networks.map((b: { binding: string; tunnel_id?: string; network_id?: string }) => ({
            binding: b.binding,
            tunnel_id: b.tunnel_id,
            network_id: b.network_id,
          })),
        );
        expect(facts.topLevelVpcNetworks).toEqual(env === undefined ? [] : ["VPC_EAST"]);
      }
    });
  }

  it("names a missing environment and the ones there are", () => {
    const config = join(dir, "wrangler.toml");
    writeFileSync(config, RICHER);
    expect(() => readWranglerFacts(config, "prod")).toThrow('has no environment "prod"');
  });

  it("the routes line kedge init writes, uncommented where it stands, is the Worker's routes; one below a [table] header is named", () => {
    const template = readFileSync(join(ROOT, "scripts", "cli", "templates", "wrangler.toml"), "utf8");
    const config = join(dir, "wrangler.toml");
    writeFileSync(config, template.replace(/^# (routes = .*)$/m, "$1"));
    expect(readWranglerFacts(config)).toMatchObject({ routes: ["app.example.com/*"], routesDeclared: true, misplacedRoutes: [] });
    // The same line below the [observability] header belongs to that table: not the Worker's routes.
    writeFileSync(config, `${template}routes = [{ pattern = "app.example.com/*", zone_name = "example.com" }]\n`);
    expect(readWranglerFacts(config)).toMatchObject({ routes: [], routesDeclared: false, misplacedRoutes: ["observability"] });
  });
});
