/**
 * @module The candidate matches of one host, in precedence order, with path buckets: Exact paths by
 * value and PathPrefix values by prefix, so a request looks at the few candidates its path can match
 * instead of every route of its host. Everything else (regular expressions) stays in a short residual list.
 */
import type { CompiledMatch } from "../table/route-table";
import { matchHolds, type RequestFacts } from "./match-conditions";
import type { PreparedMatch } from "./prepared-table";

/** Hosts with at most this many candidates are scanned in order; the buckets pay off above it. */
const SCAN_BELOW = 8;

export interface CandidateSet {
  /** Match indexes in precedence order. */
  all: number[];
  /** Exact path value → positions in `all`, ascending. */
  exact: Map<string, number[]>;
  /** PathPrefix value → positions in `all`, ascending. */
  prefix: Map<string, number[]>;
  /** Positions of every other candidate, ascending. */
  other: number[];
}

export function buildCandidateSet(all: number[], matches: CompiledMatch[]): CandidateSet {
  const set: CandidateSet = { all, exact: new Map(), prefix: new Map(), other: [] };
  all.forEach((matchIndex, position) => {
    const path = matches[matchIndex]?.path;
    // Compiled prefixes carry no trailing slash (except "/"); anything else is left to the residual scan.
    const bucketable = path?.type === "Exact" || (path?.type === "PathPrefix" && (path.value === "/" || !path.value.endsWith("/")));
    const bucket = !bucketable ? undefined : path?.type === "Exact" ? set.exact : set.prefix;
    if (!bucket || !path) {
      set.other.push(position);
      return;
    }
    const list = bucket.get(path.value);
    if (list) list.push(position);
    else bucket.set(path.value, [position]);
  });
  return set;
}

/**
 * The first holding candidate, in precedence order, among `positions` (ascending) that is before `best`;
 * `best` when there is none.
 */
function scanBefore(set: CandidateSet, positions: number[] | undefined, best: number, matches: PreparedMatch[], req: RequestFacts): number {
  if (positions === undefined) return best;
  for (let k = 0; k < positions.length; k++) {
    const p = positions[k]!;
    if (p >= best) return best;
    if (matchHolds(matches[set.all[p]!]!, req)) return p;
  }
  return best;
}

/**
 * The position of the first candidate (in precedence order) for which `holds` is true, or -1. Each
 * bucket is scanned only up to the best position found so far, so the answer equals a full scan's.
 * The prefix buckets are looked up for every segment prefix of the path ("/", "/a", "/a/b", ...).
 */
export function firstHolding(set: CandidateSet, matches: PreparedMatch[], req: RequestFacts): number {
  // A short list is cheaper to scan than to look up by path.
  if (set.all.length <= SCAN_BELOW) {
    for (let p = 0; p < set.all.length; p++) if (matchHolds(matches[set.all[p]!]!, req)) return p;
    return -1;
  }
  const { path } = req;
  let best = scanBefore(set, set.exact.get(path), set.all.length, matches, req);
  if (set.prefix.size > 0) {
    best = scanBefore(set, set.prefix.get("/"), best, matches, req);
    for (let i = path.indexOf("/", 1); i !== -1; i = path.indexOf("/", i + 1)) {
      best = scanBefore(set, set.prefix.get(path.slice(0, i)), best, matches, req);
    }
    if (path.length > 1 && !path.endsWith("/")) best = scanBefore(set, set.prefix.get(path), best, matches, req);
  }
  best = scanBefore(set, set.other, best, matches, req);
  return best === set.all.length ? -1 : best;
}
