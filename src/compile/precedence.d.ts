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
/** Negative when `a` wins. Rules 1–5 of spec §1.5. */
export declare function compareMatchSpecificity(a: CompiledMatch, b: CompiledMatch): number;
/** Cross-route tie (rule 6): the oldest route, then "{namespace}/{name}"; then cluster order; then rule 7. */
export declare function compareRouteOrder(a: RankedMatch, b: RankedMatch): number;
/** Full order for one host: hostname specificity, match specificity, route age and name, rule order. */
export declare function compareCandidates(
  a: {
    score: HostScore;
    ranked: RankedMatch;
  },
  b: {
    score: HostScore;
    ranked: RankedMatch;
  },
): number;
