/**
 * @module Reads what the scripts need from the wrangler config, in each form wrangler reads
 * (wrangler.json, wrangler.jsonc, wrangler.toml, found in that order when none is named) and for an
 * environment (`--env`): the ROUTES KV namespace id and the table the Worker serves (for the sync), the
 * routes it is deployed on, and the Worker's local bindings (for Miniflare). As in wrangler, `vars`,
 * `kv_namespaces` and `durable_objects` are not inherited by an environment: it declares its own.
 * Importing wrangler to read it costs about 3 s, paid by every sync, `npm start` and test file that
 * starts the gateway; test/unit/wrangler-config.test.ts holds this reader to wrangler's own.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "smol-toml";
import { UserError } from "../lib/user-error";
import { parseJsonc } from "./jsonc";

export const ROUTES_BINDING = "ROUTES";
/** The file names wrangler looks for, in its order. */
export const WRANGLER_CONFIG_NAMES = ["wrangler.json", "wrangler.jsonc", "wrangler.toml"] as const;

export interface WranglerFacts {
  kvNamespaceId: string;
  /** `vars.KEDGE_TABLE` of the environment: the table its Worker serves ("kedge" when unset). */
  servedTable: string;
  /** The route patterns and custom domains the Worker is deployed on. */
  routes: string[];
  /** Whether the config (or the environment) has a `routes` or `route` key at all, even an empty one. */
  routesDeclared?: boolean;
  /**
   * Tables holding a `routes` key wrangler does not read as the Worker's (`observability`): in TOML a key below a
   * `[table]` header belongs to that table, so a routes line uncommented in the wrong place lands there.
   */
  misplacedRoutes?: string[];
  /** The environment's own `[[vpc_networks]]` blocks (not inherited), as written. */
  vpcNetworks: VpcNetworkBlock[];
  /** Bindings the top level declares under vpc_networks, for an environment that lacks them. */
  topLevelVpcNetworks: string[];
}

/** One `[[vpc_networks]]` block: a binding to a Cloudflare Tunnel (`tunnel_id`) or a virtual network (`network_id`). */
export interface VpcNetworkBlock {
  binding?: string;
  tunnel_id?: unknown;
  network_id?: unknown;
}

type Toml = Record<string, unknown>;
const isTable = (v: unknown): v is Toml => typeof v === "object" && v !== null && !Array.isArray(v);

/** The wrangler config in `dir` that wrangler would use, or the first name it looks for when there is none. */
export function findWranglerConfig(dir = "."): string {
  return WRANGLER_CONFIG_NAMES.map((name) => join(dir, name)).find((path) => existsSync(path)) ?? join(dir, "wrangler.toml");
}

function readConfigFile(configPath: string): Toml {
  if (!existsSync(configPath))
    throw new UserError(
      `${configPath} does not exist`,
      "run from the project folder, or pass --wrangler-config FILE; a project without one: `npx kedge init` in an empty folder writes one to copy (docs/cli.md#kedge-init)",
    );
  const text = readFileSync(configPath, "utf8");
  try {
    const value = configPath.endsWith(".toml") ? parse(text) : parseJsonc(text);
    if (!isTable(value)) throw new Error("the top level is not an object");
    return value;
  } catch (error) {
    const form = configPath.endsWith(".toml") ? "TOML" : "JSON";
    throw new UserError(`cannot read ${configPath}: ${(error as Error).message.split("\n")[0]}`, `fix the ${form} syntax`);
  }
}

/** The config and the section of `env` that holds the keys environments do not inherit. */
function readConfig(configPath: string, env?: string): { top: Toml; section: Toml } {
  const top = readConfigFile(configPath);
  if (env === undefined) return { top, section: top };
  const envs = isTable(top.env) ? top.env : {};
  const section = envs[env];
  if (!isTable(section)) {
    const known = Object.keys(envs);
    throw new UserError(
      `${configPath} has no environment "${env}"`,
      known.length > 0 ? `environments: ${known.join(", ")}` : 'define it under [env.NAME] (or "env": { NAME: ... })',
    );
  }
  return { top, section };
}

const tables = (v: unknown): Toml[] => (Array.isArray(v) ? v.filter(isTable) : []);
const text = (v: unknown): string | undefined => (typeof v === "string" && v !== "" ? v : undefined);

/** Route patterns and custom domains, in their string or object forms (inherited by environments unless set). */
function routesOf(top: Toml, section: Toml): string[] {
  const holder = section.routes !== undefined || section.route !== undefined ? section : top;
  const raw = [...(Array.isArray(holder.routes) ? holder.routes : []), ...(holder.route !== undefined ? [holder.route] : [])];
  return raw.flatMap((r) => (typeof r === "string" ? [r] : isTable(r) && typeof r.pattern === "string" ? [r.pattern] : []));
}

export function readWranglerFacts(configPath: string, env?: string): WranglerFacts {
  const { top, section } = readConfig(configPath, env);
  const namespaces = tables(section.kv_namespaces);
  const kv = namespaces.find((n) => n.binding === ROUTES_BINDING);
  if (!kv || typeof kv.id !== "string" || kv.id === "") {
    const where = env === undefined ? "" : ` in environment "${env}" (environments do not inherit kv_namespaces)`;
    throw new UserError(
      `${configPath} has no kv_namespaces entry with binding "${ROUTES_BINDING}" and an id${where}`,
      "add it (docs/deploying.md)",
    );
  }
  const vars = isTable(section.vars) ? section.vars : {};
  const vpc = (t: Toml): VpcNetworkBlock[] =>
    tables(t.vpc_networks).map((b) => ({ binding: text(b.binding), tunnel_id: b.tunnel_id, network_id: b.network_id }));
  const holder = section.routes !== undefined || section.route !== undefined ? section : top;
  const misplaced = (t: Toml, prefix: string) =>
    Object.entries(t).flatMap(([key, v]) => (key !== "env" && isTable(v) && v.routes !== undefined ? [`${prefix}${key}`] : []));
  return {
    kvNamespaceId: kv.id,
    servedTable: text(vars.KEDGE_TABLE) ?? "kedge",
    routes: routesOf(top, section),
    routesDeclared: holder.routes !== undefined || holder.route !== undefined,
    misplacedRoutes: [...misplaced(top, ""), ...(section === top ? [] : misplaced(section, `env.${env}.`))],
    vpcNetworks: vpc(section),
    topLevelVpcNetworks: section === top ? [] : vpc(top).flatMap((b) => (b.binding ? [b.binding] : [])),
  };
}

/** What Miniflare needs to run the Worker locally as `wrangler dev` would, from the top-level config. */
export interface LocalWorkerOptions {
  compatibilityDate?: string;
  compatibilityFlags: string[];
  /** [vars] */
  bindings: Record<string, unknown>;
  kvNamespaces: Record<string, { id: string }>;
  durableObjects: Record<string, { className: string; scriptName?: string; useSQLite: boolean }>;
}

/**
 * The Worker's local bindings: [vars], [[kv_namespaces]] and [[durable_objects.bindings]] (SQLite-backed
 * when a migration names the class in new_sqlite_classes). Remote-only bindings (mTLS certificates) have
 * no local form; the Worker reports them missing when an XBackend needs one.
 */
export function readLocalWorkerOptions(configPath: string, env?: string): LocalWorkerOptions {
  const { top, section: config } = readConfig(configPath, env);
  const sqliteClasses = new Set(
    tables(top.migrations).flatMap((m) =>
      Array.isArray(m.new_sqlite_classes) ? m.new_sqlite_classes.filter((c) => typeof c === "string") : [],
    ),
  );
  const kvNamespaces: LocalWorkerOptions["kvNamespaces"] = {};
  for (const kv of tables(config.kv_namespaces)) {
    const binding = text(kv.binding);
    const id = text(kv.id);
    if (binding && id) kvNamespaces[binding] = { id };
  }
  const durableObjects: LocalWorkerOptions["durableObjects"] = {};
  const objects = isTable(config.durable_objects) ? tables(config.durable_objects.bindings) : [];
  for (const d of objects) {
    const name = text(d.name);
    const className = text(d.class_name);
    if (!name || !className) continue;
    const scriptName = text(d.script_name);
    durableObjects[name] = { className, ...(scriptName ? { scriptName } : {}), useSQLite: sqliteClasses.has(className) };
  }
  const inherited = (key: string) => (config[key] !== undefined ? config[key] : top[key]);
  const flags = inherited("compatibility_flags");
  return {
    compatibilityDate: text(inherited("compatibility_date")),
    compatibilityFlags: Array.isArray(flags) ? flags.filter((f) => typeof f === "string") : [],
    bindings: isTable(config.vars) ? { ...config.vars } : {},
    kvNamespaces,
    durableObjects,
  };
}

/** The Cron Triggers of the top-level config (`[triggers] crons`), which `kedge dev` fires locally (dev/local-cron.ts). */
export function readCrons(configPath: string): string[] {
  const { top } = readConfig(configPath);
  const triggers = isTable(top.triggers) ? top.triggers : {};
  return Array.isArray(triggers.crons) ? triggers.crons.filter((c): c is string => typeof c === "string") : [];
}
