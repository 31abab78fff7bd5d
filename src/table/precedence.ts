/**
 * @module Gateway API precedence among matching rules (spec §1.4 cross-route hostnames, §1.5 matches), stated
 * once: the compiler sorts each host's candidates by it (the Worker then takes the first that matches), and
 * `kedge explain` names the step that tells two candidates apart from the same list of steps.
 */
import type { CompiledMatch } from "./route-table";

/** What the cross-route tie-break reads of a route (spec §1.5 rule 6). */
export interface RouteIdentity {
  namespace: string;
  name: string;
  /** metadata.creationTimestamp, when the object had one. */
  creationTimestamp?: string;
}

/** A match with everything the ordering needs. */
export interface RankedMatch {
  index: number;
  match: CompiledMatch;
  route: RouteIdentity;
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
const PATH_RANK: Readonly<Record<string, number>> = { Exact: 0, RegularExpression: 1, PathPrefix: 2 };

/** One step of match precedence: negative when `a` wins; and what tells `winner` from `loser` at it. */
interface MatchStep {
  compare(a: CompiledMatch, b: CompiledMatch): number;
  why(winner: CompiledMatch, loser: CompiledMatch): string;
}

/** Spec §1.5 rules 1–5, in order. */
export const MATCH_STEPS: readonly MatchStep[] = [
  {
    compare: (a, b) => PATH_RANK[a.path.type]! - PATH_RANK[b.path.type]!,
    why: (w, l) => `path type: ${w.path.type} ranks above ${l.path.type}`,
  },
  {
    compare: (a, b) => b.path.value.length - a.path.value.length,
    why: (w, l) => `path: a longer ${w.path.type} (${w.path.value.length} characters) ranks above a shorter one (${l.path.value.length})`,
  },
  {
    compare: (a, b) => Number(b.method !== undefined) - Number(a.method !== undefined),
    why: () => "method: a match on the method ranks above none",
  },
  {
    compare: (a, b) => b.headers.length - a.headers.length,
    why: (w, l) => `headers: more header matches rank higher (${w.headers.length} vs ${l.headers.length})`,
  },
  {
    compare: (a, b) => b.queryParams.length - a.queryParams.length,
    why: (w, l) => `query: more query parameter matches rank higher (${w.queryParams.length} vs ${l.queryParams.length})`,
  },
];

/** Negative when `a` wins. Rules 1–5 of spec §1.5. */
export function compareMatchSpecificity(a: CompiledMatch, b: CompiledMatch): number {
  for (const step of MATCH_STEPS) {
    const order = step.compare(a, b);
    if (order !== 0) return order;
  }
  return 0;
}

const compareText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Cross-route tie (rule 6): the oldest route, then "{namespace}/{name}"; then cluster order; then rule 7. */
export function compareRouteOrder(a: RankedMatch, b: RankedMatch): number {
  if (a.route !== b.route) {
    const ta = a.route.creationTimestamp ?? "";
    const tb = b.route.creationTimestamp ?? "";
    // A route without a timestamp sorts after the ones that have one.
    const byAge = ta && tb ? compareText(ta, tb) : Number(ta === "") - Number(tb === "");
    const byName = compareText(`${a.route.namespace}/${a.route.name}`, `${b.route.namespace}/${b.route.name}`);
    const order = byAge || byName || a.clusterOrder - b.clusterOrder;
    if (order !== 0) return order;
  }
  return a.ruleIndex - b.ruleIndex || a.matchIndex - b.matchIndex || a.index - b.index;
}

/** Full order for one host: hostname specificity (§1.4), match specificity, route age and name, rule order. */
export function compareCandidates(a: { score: HostScore; ranked: RankedMatch }, b: { score: HostScore; ranked: RankedMatch }): number {
  return (
    b.score.exactLength - a.score.exactLength ||
    b.score.patternLength - a.score.patternLength ||
    compareMatchSpecificity(a.ranked.match, b.ranked.match) ||
    compareRouteOrder(a.ranked, b.ranked)
  );
}

/**
 * Why `loser` ranks below `winner` among one host's candidates (listed in the order above): the first step
 * that tells them apart. A table keeps no hostnames per match, so a winner whose match is less specific
 * than the loser's can only have won at the step before the matches: the hostname.
 */
export function precedenceStep(winner: CompiledMatch, loser: CompiledMatch): string {
  for (const step of MATCH_STEPS) {
    const order = step.compare(winner, loser);
    if (order < 0) return step.why(winner, loser);
    if (order > 0) return "hostname: its route names this host more precisely (a precise hostname ranks above a wildcard)";
  }
  return "equal specificity: a more precise hostname, else the older route (then namespace/name, then rule order) wins";
}
