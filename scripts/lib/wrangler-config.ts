/** @module Reads what the scripts need from wrangler.toml: the ROUTES KV namespace id and the Worker's settings. */
import { unstable_readConfig } from "wrangler";
import { UserError } from "../sync/user-error";

export const ROUTES_BINDING = "ROUTES";

export interface WranglerFacts {
  kvNamespaceId: string;
  compatibilityDate: string;
  compatibilityFlags: string[];
  vars: Record<string, string>;
}

export function readWranglerFacts(configPath: string): WranglerFacts {
  let config: ReturnType<typeof unstable_readConfig>;
  try {
    config = unstable_readConfig({ config: configPath }, { hideWarnings: true });
  } catch (error) {
    throw new UserError(`cannot read ${configPath}: ${(error as Error).message}`, "pass --wrangler-config FILE");
  }
  const kv = config.kv_namespaces.find((n) => n.binding === ROUTES_BINDING);
  if (!kv?.id) throw new UserError(`${configPath} has no kv_namespaces entry with binding "${ROUTES_BINDING}" and an id`, "add it (see README: deploying)");
  const vars: Record<string, string> = {};
  for (const [k, v] of Object.entries(config.vars ?? {})) vars[k] = typeof v === "string" ? v : JSON.stringify(v);
  return {
    kvNamespaceId: kv.id,
    compatibilityDate: config.compatibility_date ?? "2026-04-20",
    compatibilityFlags: config.compatibility_flags ?? [],
    vars,
  };
}
