/**
 * @module The request matcher: host index lookup, then the first candidate (already in Gateway API
 * precedence) whose path, method, headers and query parameters all hold.
 */
import type { CompiledRule } from "../table/route-table";
import { type CandidateSet, firstHolding } from "./candidate-set";
import { lookupHost } from "./hostname-match";
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
 * The rule that handles the request, or null (404). When listeners of the request's protocol listen on
 * several ports, a rule attached through a listener on the request's port wins over the others; a
 * request on a port no listener names is served as if listener ports did not matter.
 */
export function matchRequest(prepared: PreparedTable, req: RequestFacts): RouteMatch | null {
  const index = prepared.hosts[req.protocol];
  if (!index) return null;
  const set = candidatesFor(index, req.host);
  const preferPort = req.port !== undefined && prepared.multiPort[req.protocol] ? req.port : undefined;
  if (preferPort === undefined) {
    const position = firstHolding(set, req);
    return position === -1 ? null : routeMatch(prepared, set.candidates[position]!);
  }
  // Several listener ports: the first holding candidate of the request's port, else the first overall.
  let first: PreparedMatch | undefined;
  for (const m of set.candidates) {
    if (!matchHolds(m, req)) continue;
    if (prepared.rules[m.rule]?.listenerPort === preferPort) return routeMatch(prepared, m);
    first ??= m;
  }
  return first ? routeMatch(prepared, first) : null;
}
