/**
 * @module The request matcher: host index lookup, then the first candidate (already in Gateway API
 * precedence) whose path, method, headers and query parameters all hold.
 */
import type { CompiledRule, Protocol } from "../table/route-table";
import type { PreparedHostIndex, PreparedMatch, PreparedTable } from "./prepared-table";

/** What the matcher looks at. `host` is lower-case without a port; `path` excludes the query. */
export interface RequestFacts {
  protocol: Protocol;
  host: string;
  path: string;
  method: string;
  headers: { get(name: string): string | null };
  query: { get(name: string): string | null };
  /** The port the request arrived on (Cloudflare serves HTTP on 80, 8080, 8880, ... and HTTPS on 443, 8443, ...). */
  port?: number;
}

export interface RouteMatch {
  rule: CompiledRule;
  ruleIndex: number;
  matchId: string;
  /** The matched PathPrefix value, for ReplacePrefixMatch. */
  prefix?: string;
}

/** Candidate match indexes for a host: exact, then the longest wildcard suffix, then the catch-all. */
export function candidatesFor(index: PreparedHostIndex, host: string): number[] {
  const exact = index.exact.get(host);
  if (exact) return exact;
  for (let dot = host.indexOf("."); dot !== -1; dot = host.indexOf(".", dot + 1)) {
    const found = index.wildcard.get(host.slice(dot + 1));
    if (found) return found;
  }
  return index.any;
}

function pathMatches(m: PreparedMatch, path: string): boolean {
  const { type, value } = m.match.path;
  if (type === "Exact") return path === value;
  if (type === "PathPrefix") {
    // Segment boundary: `/abc` matches `/abc` and `/abc/...`, never `/abcd`.
    return value === "/" || (path.startsWith(value) && (path.length === value.length || path.charCodeAt(value.length) === 47));
  }
  return m.pathRegex?.test(path) ?? false;
}

function matches(m: PreparedMatch, req: RequestFacts): boolean {
  const { match } = m;
  if (match.method !== undefined && match.method !== req.method) return false;
  if (!pathMatches(m, req.path)) return false;
  for (let i = 0; i < match.headers.length; i++) {
    const h = match.headers[i]!;
    const actual = req.headers.get(h.name);
    if (actual === null) return false;
    const regex = m.headerRegex[i];
    if (regex ? !regex.test(actual) : actual !== h.value) return false;
  }
  for (let i = 0; i < match.queryParams.length; i++) {
    const q = match.queryParams[i]!;
    const actual = req.query.get(q.name); // the first value of a repeated parameter (spec recommendation)
    if (actual === null) return false;
    const regex = m.queryRegex[i];
    if (regex ? !regex.test(actual) : actual !== q.value) return false;
  }
  return true;
}

function routeMatch(prepared: PreparedTable, m: PreparedMatch): RouteMatch | null {
  const rule = prepared.rules[m.match.rule];
  if (!rule) return null;
  return { rule, ruleIndex: m.match.rule, matchId: m.match.id, prefix: m.match.path.type === "PathPrefix" ? m.match.path.value : undefined };
}

/**
 * The rule that handles the request, or null (404). When listeners of the request's protocol listen on
 * several ports, a rule attached through a listener on the request's port wins over the others; a
 * request on a port no listener names is served as if listener ports did not matter.
 */
export function matchRequest(prepared: PreparedTable, req: RequestFacts): RouteMatch | null {
  const index = prepared.hosts[req.protocol];
  if (!index) return null;
  const preferPort = req.port !== undefined && prepared.multiPort[req.protocol] ? req.port : undefined;
  let first: PreparedMatch | undefined;
  for (const i of candidatesFor(index, req.host)) {
    const m = prepared.matches[i];
    if (!m || !matches(m, req)) continue;
    if (preferPort === undefined || prepared.rules[m.match.rule]?.listenerPort === preferPort) return routeMatch(prepared, m);
    first ??= m;
  }
  return first ? routeMatch(prepared, first) : null;
}
