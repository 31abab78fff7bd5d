/**
 * @module Reads what the scripts need from wrangler.toml with a TOML parser: the ROUTES KV namespace id
 * (for the sync) and the Worker's local bindings (for Miniflare). Importing wrangler to read it costs
 * about 3 s, paid by every sync, `npm start` and test file that starts the gateway.
 */
import { existsSync, readFileSync } from "node:fs";
import { parse } from "smol-toml";
import { UserError } from "../sync/user-error";

export const ROUTES_BINDING = "ROUTES";

export interface WranglerFacts {
  kvNamespaceId: string;
}

type Toml = Record<string, unknown>;
const isTable = (v: unknown): v is Toml => typeof v === "object" && v !== null && !Array.isArray(v);

function readToml(configPath: string): Toml {
  if (!existsSync(configPath))
    throw new UserError(`${configPath} does not exist`, "run from the project folder, or pass --wrangler-config FILE");
  try {
    return parse(readFileSync(configPath, "utf8"));
  } catch (error) {
    throw new UserError(`cannot read ${configPath}: ${(error as Error).message.split("\n")[0]}`, "fix the TOML syntax");
  }
}

const tables = (v: unknown): Toml[] => (Array.isArray(v) ? v.filter(isTable) : []);
const text = (v: unknown): string | undefined => (typeof v === "string" && v !== "" ? v : undefined);

export function readWranglerFacts(configPath: string): WranglerFacts {
  const config = readToml(configPath);
  const namespaces = tables(config.kv_namespaces);
  const kv = namespaces.find((n) => n.binding === ROUTES_BINDING);
  if (!kv || typeof kv.id !== "string" || kv.id === "") {
    throw new UserError(
      `${configPath} has no [[kv_namespaces]] entry with binding "${ROUTES_BINDING}" and an id`,
      "add it (see README: deploying)",
    );
  }
  return { kvNamespaceId: kv.id };
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
export function readLocalWorkerOptions(configPath: string): LocalWorkerOptions {
  const config = readToml(configPath);
  const sqliteClasses = new Set(
    tables(config.migrations).flatMap((m) =>
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
  return {
    compatibilityDate: text(config.compatibility_date),
    compatibilityFlags: Array.isArray(config.compatibility_flags) ? config.compatibility_flags.filter((f) => typeof f === "string") : [],
    bindings: isTable(config.vars) ? { ...config.vars } : {},
    kvNamespaces,
    durableObjects,
  };
}
