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

/** Whether some route takes any hostname (a listener and a route without hostnames): its names are not in the table. */
const answersAnyHost = (table: RouteTable): boolean => Object.values(table.hosts).some((index) => (index?.any.length ?? 0) > 0);

/** One routes entry, in the config's form. */
const routeEntry = (host: string, toml: boolean): string =>
  toml ? `  { pattern = "${host}/*", zone_name = "${zoneOf(host)}" },` : `    { "pattern": "${host}/*", "zone_name": "${zoneOf(host)}" },`;

/**
 * What the Worker's routes lack for the hostnames the table serves, with the entries to add in the config's own
 * form (into its routes when it has some, else the whole key, placed where wrangler reads it); a routes key
 * that landed inside another table; a table that answers any hostname while the Worker has no route. Null when
 * nothing is missing.
 */
export function missingRoutesBlock(facts: WranglerFacts, table: RouteTable, configPath: string, env?: string): string | null {
  const toml = configPath.endsWith(".toml");
  const problems: string[] = [];
  for (const where of facts.misplacedRoutes ?? [])
    problems.push(
      `${configPath} has a routes key inside [${where}], where wrangler does not read it as the Worker's routes (in TOML a key below a [table] header belongs to that table): move it above the first [table] header${env ? ` or into [env.${env}]` : ""}`,
    );
  const missing = servedHostnames(table).filter((host) => !facts.routes.some((p) => routeCovers(p, host)));
  // No name to give when routes take any host: an example the user fills in, and how to let kedge name them.
  const example = missing.length === 0 && answersAnyHost(table) && facts.routes.length === 0;
  if (missing.length > 0 || example) {
    const entries = (missing.length > 0 ? missing : ["app.example.com"]).map((host) => routeEntry(host, toml));
    const section = env ? `[env.${env}]` : toml ? "the top of the file, above the first [table] header" : "the top level";
    const block = facts.routesDeclared ? entries : toml ? ["routes = [", ...entries, "]"] : ['  "routes": [', ...entries, "  ],"];
    const placement = facts.routesDeclared ? "add to its routes" : `add to ${section}`;
    problems.push(
      missing.length > 0
        ? `the Worker's routes in ${configPath} do not cover ${missing.length === 1 ? "hostname" : "hostnames"} ${missing.join(", ")}; requests for ${missing.length === 1 ? "it" : "them"} never reach kedge. ${placement[0]!.toUpperCase()}${placement.slice(1)} (check each zone_name):\n${block.join("\n")}`
        : `the table answers any hostname (a listener and a route without hostnames), and ${configPath} has no routes: no request reaches kedge. Add a route for each hostname you point at it, for example (${placement}):\n${block.join("\n")}\n(or give the listener or the route its hostnames, and kedge names the entries)`,
    );
  }
  return problems.length > 0 ? problems.join("\n") : null;
}
