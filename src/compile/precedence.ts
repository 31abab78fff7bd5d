/**
 * @module Gateway API precedence among matching rules (spec §1.4 cross-route hostnames, §1.5 matches).
 * Sorting happens once at compile time; the Worker takes the first candidate that matches.
 */
import type { Manifest } from "../gateway-api/manifest";
import type { CompiledMatch } from "../table/route-table";

/** A match with everything the ordering needs. */
export interface RankedMatch {
  index: number;
  match: CompiledMatch;
  route: Manifest;
  clusterOrder: number;
  ruleIndex: number;
  matchIndex: number;
}

/** Characters in the matching non-wildcard hostname, then in the matching hostname (spec §1.4). */
export interface HostScore {
  exactLength: number;
  patternLength: number;
}

// Regex precedence is implementation-specific; kedge ranks it between Exact and PathPrefix (as Envoy Gateway does).
const PATH_RANK = { Exact: 0, RegularExpression: 1, PathPrefix: 2 } as const;

/** Negative when `a` wins. Rules 1–5 of spec §1.5. */
export function compareMatchSpecificity(a: CompiledMatch, b: CompiledMatch): number {
  return (
    PATH_RANK[a.path.type] - PATH_RANK[b.path.type] ||
    b.path.value.length - a.path.value.length ||
    Number(b.method !== undefined) - Number(a.method !== undefined) ||
    b.headers.length - a.headers.length ||
    b.queryParams.length - a.queryParams.length
  );
}

const compareText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Cross-route tie (rule 6): the oldest route, then "{namespace}/{name}"; then cluster order; then rule 7. */
export function compareRouteOrder(a: RankedMatch, b: RankedMatch): number {
  if (a.route !== b.route) {
    const ta = a.route.metadata.creationTimestamp ?? "";
    const tb = b.route.metadata.creationTimestamp ?? "";
    // A route without a timestamp sorts after the ones that have one.
    const byAge = ta && tb ? compareText(ta, tb) : Number(ta === "") - Number(tb === "");
    const byName = compareText(
      `${a.route.metadata.namespace}/${a.route.metadata.name}`,
      `${b.route.metadata.namespace}/${b.route.metadata.name}`,
    );
    const order = byAge || byName || a.clusterOrder - b.clusterOrder;
    if (order !== 0) return order;
  }
  return a.ruleIndex - b.ruleIndex || a.matchIndex - b.matchIndex || a.index - b.index;
}

/** Full order for one host: hostname specificity, match specificity, route age and name, rule order. */
export function compareCandidates(a: { score: HostScore; ranked: RankedMatch }, b: { score: HostScore; ranked: RankedMatch }): number {
  return (
    b.score.exactLength - a.score.exactLength ||
    b.score.patternLength - a.score.patternLength ||
    compareMatchSpecificity(a.ranked.match, b.ranked.match) ||
    compareRouteOrder(a.ranked, b.ranked)
  );
}
