/**
 * @module The request matcher: host index lookup, then the first candidate (already in Gateway API
 * precedence) whose path, method, headers and query parameters all hold.
 */
import type { CompiledRule } from "../table/route-table";
import { type CandidateSet, firstHolding } from "./candidate-set";
import { hostEntries, lookupHost } from "./hostname-match";
import { matchHolds, type RequestFacts } from "./match-conditions";
import type { PreparedHostIndex, PreparedMatch, PreparedTable } from "./prepared-table";

export { matchHolds, type RequestFacts };

export interface RouteMatch {
  rule: CompiledRule;
  ruleIndex: number;
  /** The matched PathPrefix value, for ReplacePrefixMatch. */
  prefix?: string;
}

/** Candidate matches for a host: exact, then the longest wildcard suffix, then the catch-all. */
export function candidatesFor(index: PreparedHostIndex, host: string): CandidateSet {
  return lookupHost(index.exact, index.wildcard, host) ?? index.any;
}

function routeMatch(prepared: PreparedTable, m: PreparedMatch): RouteMatch | null {
  const rule = prepared.rules[m.rule];
  if (!rule) return null;
  return {
    rule,
    ruleIndex: m.rule,
    prefix: m.pathType === "PathPrefix" ? m.pathValue : undefined,
  };
}

/**
 * The rule that handles the request, or null (404). When listeners of the request's protocol use several
 * ports, the port the request came to selects listeners as its host does (Gateway API: a listener is a
 * port and a hostname): a request on one of those ports is served by the routes of that port's listeners
 * only, through the most specific hostname that port has routes for; a request on a port no listener
 * names is served as if listener ports did not matter (the edge's own ports differ from the clusters').
 */
export function matchRequest(prepared: PreparedTable, req: RequestFacts): RouteMatch | null {
  const index = prepared.hosts[req.protocol];
  if (!index) return null;
  const ports = prepared.listenerPorts[req.protocol];
  if (!ports || req.port === undefined || !ports.has(req.port)) {
    const set = candidatesFor(index, req.host);
    const position = firstHolding(set, req);
    return position === -1 ? null : routeMatch(prepared, set.candidates[position]!);
  }
  const onPort = (m: PreparedMatch) => prepared.rules[m.rule]?.listenerPort === req.port;
  for (const set of [...hostEntries(index.exact, index.wildcard, req.host), index.any]) {
    if (!set.candidates.some(onPort)) continue;
    const m = set.candidates.find((c) => onPort(c) && matchHolds(c, req));
    return m ? routeMatch(prepared, m) : null;
  }
  return null;
}
