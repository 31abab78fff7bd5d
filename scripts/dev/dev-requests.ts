/**
 * @module The requests `kedge dev` prints to try: for the first hosts the table serves, one curl per served
 * rule, with what that rule matches (a rule whose match is `PathPrefix /api`, `method: POST` or a header
 * answers 404 to a plain `curl /`).
 */
import type { CompiledMatch, RouteTable } from "../../src/table/route-table";

/** How many hosts, and curls in all, are printed: enough to start with, short enough to read. */
const MAX_HOSTS = 8;
const MAX_REQUESTS = 16;

/** A request one match takes, in the words curl needs. */
interface TakenRequest {
  method?: string;
  path: string;
  headers: string[];
  query: string;
  /** The rule answers with a redirect, whose body says nothing: print the status line (`-i`). */
  redirects: boolean;
}

/**
 * The request `match` takes, when one can be written down: an Exact or PathPrefix path (a rule without path
 * matches was compiled as `PathPrefix /`), with its method and Exact headers and query parameters; none
 * when it needs a RegularExpression (path, header or query), which has no one value to print.
 */
function requestTaken(match: CompiledMatch, redirects: boolean): TakenRequest | undefined {
  if (match.path.type === "RegularExpression") return undefined;
  if ([...match.headers, ...match.queryParams].some((m) => m.type !== "Exact")) return undefined;
  const query = match.queryParams.map((q) => `${encodeURIComponent(q.name)}=${encodeURIComponent(q.value)}`).join("&");
  return {
    ...(match.method && match.method !== "GET" ? { method: match.method } : {}),
    path: match.path.value,
    headers: match.headers.map((h) => `${h.name}: ${h.value}`),
    query: query ? `?${query}` : "",
    redirects,
  };
}

/**
 * The requests to try on one host: for each rule among `matchIndexes` (in precedence order), the request of
 * its first match that can be written down. Rules the sync found unusable answer 500 and are left out.
 */
function requestsOfHost(table: RouteTable, matchIndexes: number[]): TakenRequest[] {
  const byRule = new Map<number, number[]>();
  for (const index of matchIndexes) {
    const match = table.matches[index];
    if (match) byRule.set(match.rule, [...(byRule.get(match.rule) ?? []), index]);
  }
  const requests: TakenRequest[] = [];
  for (const [rule, indexes] of byRule) {
    const compiled = table.rules[rule];
    if (!compiled || compiled.invalid) continue;
    const redirects = compiled.filters.some((f) => f.type === "RequestRedirect");
    // The table lists a rule's matches in their order in the HTTPRoute (match/0 first).
    const first = indexes
      .sort((a, b) => a - b)
      .map((i) => requestTaken(table.matches[i]!, redirects))
      .find((request) => request !== undefined);
    if (first) requests.push(first);
  }
  return requests;
}

/** `word` as one shell word: quoted when it holds anything a shell could read otherwise. */
const shellWord = (word: string): string => (/^[\w/:.~%-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`);

/** One curl: `-i` for a redirect, the method, the Host header (none for the routes that take any host), the rule's headers, the URL. */
function curl(base: string, host: string | undefined, r: TakenRequest): string {
  const words = [
    ...(r.redirects ? ["-i"] : []),
    ...(r.method ? ["-X", r.method] : []),
    ...(host ? ["-H", shellWord(`Host: ${host}`)] : []),
    ...r.headers.flatMap((h) => ["-H", shellWord(h)]),
    shellWord(`${base}${r.path}${r.query}`),
  ];
  return `  curl ${words.join(" ")}`;
}

/**
 * The curls to try against `base`: for each of the first hosts the table serves (`any.<suffix>` for a
 * wildcard), one per served rule, with what it matches (path, method, headers, query).
 */
export function requestsToTry(table: RouteTable, base: string): string[] {
  const index = table.hosts.HTTP ?? table.hosts.HTTPS;
  if (!index) return [`  curl ${base}/`];
  const hosts: { host?: string; matches: number[] }[] = [
    ...(index.any.length > 0 ? [{ matches: index.any }] : []),
    ...Object.entries(index.exact).map(([host, matches]) => ({ host, matches })),
    ...Object.entries(index.wildcard).map(([suffix, matches]) => ({ host: `any.${suffix}`, matches })),
  ].slice(0, MAX_HOSTS);
  const lines = new Set(hosts.flatMap(({ host, matches }) => requestsOfHost(table, matches).map((r) => curl(base, host, r))));
  return lines.size > 0 ? [...lines].slice(0, MAX_REQUESTS) : [`  curl ${base}/`];
}
