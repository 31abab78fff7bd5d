/**
 * @module The requests `kedge dev` prints to try: for the first hosts the table serves, one curl per served
 * rule, on a path that rule matches (a rule whose match is `PathPrefix /api` answers 404 on `/`).
 */
import type { CompiledMatch, RouteTable } from "../../src/table/route-table";

/** How many hosts, and curls in all, are printed: enough to start with, short enough to read. */
const MAX_HOSTS = 8;
const MAX_REQUESTS = 16;

/** A path `match` takes: an Exact value, or a PathPrefix's own value; none for a RegularExpression. */
function pathTaken(match: CompiledMatch): string | undefined {
  return match.path.type === "RegularExpression" ? undefined : match.path.value;
}

/**
 * The paths to try on one host: for each rule among `matchIndexes` (in precedence order), the path of its
 * first Exact or PathPrefix match (a rule without path matches was compiled as `PathPrefix /`). Rules the
 * sync found unusable answer 500, and rules with only RegularExpression paths have no path to print.
 */
function pathsToTry(table: RouteTable, matchIndexes: number[]): string[] {
  const byRule = new Map<number, number[]>();
  for (const index of matchIndexes) {
    const match = table.matches[index];
    if (match) byRule.set(match.rule, [...(byRule.get(match.rule) ?? []), index]);
  }
  const paths = new Set<string>();
  for (const [rule, indexes] of byRule) {
    if (table.rules[rule]?.invalid) continue;
    // The table lists a rule's matches in their order in the HTTPRoute (match/0 first).
    const first = indexes
      .sort((a, b) => a - b)
      .map((i) => pathTaken(table.matches[i]!))
      .find((path) => path !== undefined);
    if (first !== undefined) paths.add(first);
  }
  return [...paths];
}

/** `url` as one shell word: quoted when it holds anything a shell could read otherwise. */
const shellWord = (url: string): string => (/^[\w/:.~%-]+$/.test(url) ? url : `'${url.replaceAll("'", `'\\''`)}'`);

/**
 * The curls to try against `base`: for each of the first hosts the table serves (`any.<suffix>` for a
 * wildcard, no Host header for the routes that take any host), one per served rule, on a path it matches.
 */
export function requestsToTry(table: RouteTable, base: string): string[] {
  const index = table.hosts.HTTP ?? table.hosts.HTTPS;
  if (!index) return [`  curl ${base}/`];
  const hosts: { header: string; matches: number[] }[] = [
    ...(index.any.length > 0 ? [{ header: "", matches: index.any }] : []),
    ...Object.entries(index.exact).map(([host, matches]) => ({ header: `-H 'Host: ${host}' `, matches })),
    ...Object.entries(index.wildcard).map(([suffix, matches]) => ({ header: `-H 'Host: any.${suffix}' `, matches })),
  ].slice(0, MAX_HOSTS);
  const lines = hosts.flatMap(({ header, matches }) =>
    pathsToTry(table, matches).map((path) => `  curl ${header}${shellWord(`${base}${path}`)}`),
  );
  return lines.length > 0 ? lines.slice(0, MAX_REQUESTS) : [`  curl ${base}/`];
}
