/**
 * @module What the sync can tell about the deployment it writes for, from the wrangler config: whether the
 * Worker of that environment serves this table at all (vars.KEDGE_TABLE), and whether its routes cover the
 * hostnames the table serves (else the block to add). Warnings: the push itself is still correct.
 */
import type { RouteTable } from "../../src/table/route-table";
import type { WranglerFacts } from "../config/wrangler-config";

/** Why the Worker will not serve this table, or null when it will. */
export function tableNameProblem(facts: WranglerFacts, table: string, where: string): string | null {
  if (facts.servedTable === table) return null;
  return `the Worker of ${where} serves table "${facts.servedTable}" (vars.KEDGE_TABLE), but this config is table "${table}" (kedge.yaml metadata.name): it would be written and never served. Make them the same`;
}

/** The hostnames the table serves: exact names and wildcards, across protocols. */
export function servedHostnames(table: RouteTable): string[] {
  const names = new Set<string>();
  for (const index of Object.values(table.hosts)) {
    for (const host of Object.keys(index?.exact ?? {})) names.add(host);
    for (const suffix of Object.keys(index?.wildcard ?? {})) names.add(`*.${suffix}`);
  }
  return [...names].sort();
}

/** Whether a route pattern (`host/path*`, host possibly starting with `*`) or custom domain takes requests for `host`. */
export function routeCovers(pattern: string, host: string): boolean {
  const patternHost = pattern.split("/")[0]!.toLowerCase();
  if (patternHost === host) return true;
  if (!patternHost.startsWith("*")) return false;
  const suffix = patternHost.slice(1); // ".example.com" or "example.com"
  const hostSuffix = host.startsWith("*.") ? host.slice(1) : host;
  return hostSuffix.endsWith(suffix) && (suffix.startsWith(".") || hostSuffix === suffix || hostSuffix.endsWith(`.${suffix}`));
}

/** A served hostname's zone, as a guess the user checks: its last two labels. */
const zoneOf = (host: string): string => host.replace(/^\*\./, "").split(".").slice(-2).join(".");

/** The routes block the served hostnames need and the Worker's routes lack, in the config's own form; null when none is missing. */
export function missingRoutesBlock(facts: WranglerFacts, table: RouteTable, configPath: string): string | null {
  const missing = servedHostnames(table).filter((host) => !facts.routes.some((p) => routeCovers(p, host)));
  if (missing.length === 0) return null;
  const toml = configPath.endsWith(".toml");
  const lines = missing.map((host) =>
    toml
      ? `  { pattern = "${host}/*", zone_name = "${zoneOf(host)}" },`
      : `    { "pattern": "${host}/*", "zone_name": "${zoneOf(host)}" },`,
  );
  const block = toml ? ["routes = [", ...lines, "]"] : ['  "routes": [', ...lines, "  ]"];
  return `the Worker's routes in ${configPath} do not cover ${missing.length === 1 ? "hostname" : "hostnames"} ${missing.join(", ")}; requests for ${missing.length === 1 ? "it" : "them"} never reach kedge. Add (check each zone_name):\n${block.join("\n")}`;
}
