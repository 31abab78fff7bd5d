/**
 * @module Reads what the scripts need from wrangler.toml (the ROUTES KV namespace id) with a TOML
 * parser: importing wrangler itself costs seconds, and the sync runs often.
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

export function readWranglerFacts(configPath: string): WranglerFacts {
  if (!existsSync(configPath))
    throw new UserError(`${configPath} does not exist`, "run from the project folder, or pass --wrangler-config FILE");
  let config: Toml;
  try {
    config = parse(readFileSync(configPath, "utf8"));
  } catch (error) {
    throw new UserError(`cannot read ${configPath}: ${(error as Error).message.split("\n")[0]}`, "fix the TOML syntax");
  }
  const namespaces = Array.isArray(config.kv_namespaces) ? config.kv_namespaces.filter(isTable) : [];
  const kv = namespaces.find((n) => n.binding === ROUTES_BINDING);
  if (!kv || typeof kv.id !== "string" || kv.id === "") {
    throw new UserError(
      `${configPath} has no [[kv_namespaces]] entry with binding "${ROUTES_BINDING}" and an id`,
      "add it (see README: deploying)",
    );
  }
  return { kvNamespaceId: kv.id };
}
