/**
 * @module The candidate matches of one host, in precedence order, with buckets: Exact paths by value,
 * PathPrefix values by their path key, and regular expressions by the literal directory they start with, so a
 * request looks at the few candidates its path can match instead of every route of its host. A long
 * bucket whose candidates mostly require one header's exact value is split by that value too. What
 * fits no bucket stays in a short residual list.
 */
import { matchHolds, type RequestFacts } from "./match-conditions";
import type { PreparedMatch } from "./prepared-table";

/** Lists of at most this many candidates are scanned in order; the buckets and splits pay off above it. */
const SCAN_BELOW = 8;

/** Positions in `candidates` (ascending) of those that need `name` to equal a value, by value; `rest` need no such value. */
export interface HeaderSplit {
  name: string;
  byValue: Map<string, number[]>;
  rest: number[];
}

/**
 * One bucket's positions in `candidates`, ascending; split by a header's value when long. A bucket of one is the
 * bare position: most buckets hold one candidate, and a number costs the request no array to read.
 */
export type Positions = number | number[] | HeaderSplit;

export interface CandidateSet {
  /** The host's matches in precedence order; the buckets hold positions in this list. */
  candidates: PreparedMatch[];
  /** Exact path value → positions. */
  exact: ReadonlyMap<string, Positions>;
  /** The PathPrefix "/" (every path) → positions. */
  rootPrefix: Positions | undefined;
  /** pathKey(PathPrefix value) → positions; values whose keys collide share a list, and matchHolds tells them apart. */
  prefix: ReadonlyMap<number, Positions>;
  /** pathKey of the literal directory a regular expression can only match below ("/api/v1" for `/api/v1/[0-9]+`) → positions. */
  regexDir: ReadonlyMap<number, Positions>;
  /** By length: HAS_PREFIX and/or HAS_REGEX_DIR when some key of that length exists, so only those lengths are looked up. */
  keyLengths: Uint8Array;
  /**
   * The length, and the key, of the start every prefix and regex directory of this host shares ("/api/v"
   * for "/api/v1" and "/api/v2"): the pass over a path starts after it. It does not check that the path
   * starts with it: a path that does not cannot have one of those prefixes, so the keys it then builds
   * find either nothing or candidates matchHolds turns down.
   */
  leadLength: number;
  leadKey: number;
  /** Every other candidate. */
  other: Positions;
}

/**
 * A number for a path or path prefix, built one character at a time so a request's path yields the key
 * of every segment prefix in one pass: a Map lookup by number needs no substring and no string hash.
 * Kept within V8's small-integer range.
 */
const stepKey = (key: number, charCode: number): number => Math.imul(key ^ charCode, 16777619) & 0x3fffffff;
const KEY_START = 0x811c9dc5 & 0x3fffffff;

const HAS_PREFIX = 1;
const HAS_REGEX_DIR = 2;

export function pathKey(value: string): number {
  let key = KEY_START;
  for (let i = 0; i < value.length; i++) key = stepKey(key, value.charCodeAt(i));
  return key;
}

/** Whether a regular expression has a `|` outside every group and class (then no prefix is literal). */
function hasTopLevelAlternation(pattern: string): boolean {
  let depth = 0;
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === "\\") i++;
    else if (inClass) inClass = c !== "]";
    else if (c === "[") inClass = true;
    else if (c === "(") depth++;
    else if (c === ")") depth--;
    else if (c === "|" && depth === 0) return true;
  }
  return false;
}

/**
 * The directory every path a regular expression matches must start with ("/api/v1" for `/api/v1/[0-9]+`,
 * meaning "/api/v1/..."), or null when its literal start has no "/" after the first character.
 */
export function literalDirectory(pattern: string): string | null {
  if (hasTopLevelAlternation(pattern)) return null;
  let end = 0;
  while (end < pattern.length && !"\\^$.|?*+()[]{}".includes(pattern[end]!)) end++;
  // A quantifier that allows zero repetitions makes the last literal character optional.
  if (end < pattern.length && "?*{".includes(pattern[end]!)) end--;
  const slash = pattern.lastIndexOf("/", end - 1);
  return slash > 0 ? pattern.slice(0, slash) : null;
}

/** The header most candidates need an exact value of, if enough of them do for a split to pay off. */
function splitByHeader(positions: number[], candidates: PreparedMatch[]): Positions {
  if (positions.length <= SCAN_BELOW) return positions;
  const counts = new Map<string, number>();
  for (const p of positions) {
    for (const h of candidates[p]!.match.headers) if (h.type === "Exact") counts.set(h.name, (counts.get(h.name) ?? 0) + 1);
  }
  let name = "";
  let most = 0;
  for (const [n, count] of counts) if (count > most) [name, most] = [n, count];
  if (most * 2 < positions.length) return positions;
  const split: HeaderSplit = { name, byValue: new Map(), rest: [] };
  for (const p of positions) {
    const value = candidates[p]!.match.headers.find((h) => h.type === "Exact" && h.name === name)?.value;
    if (value === undefined) split.rest.push(p);
    else {
      const list = split.byValue.get(value);
      if (list) list.push(p);
      else split.byValue.set(value, [p]);
    }
  }
  return split;
}

/** Empty buckets, shared: a short list's (firstHolding scans it in order), and any a host leaves empty. */
const NO_PATHS: ReadonlyMap<string, Positions> = new Map();
const NO_KEYS: ReadonlyMap<number, Positions> = new Map();
const NO_LENGTHS = new Uint8Array(0);
const NO_POSITIONS: number[] = [];

/** The buckets of a host's matches, given in precedence order. */
export function buildCandidateSet(candidates: PreparedMatch[]): CandidateSet {
  if (candidates.length <= SCAN_BELOW) {
    return {
      candidates,
      exact: NO_PATHS,
      rootPrefix: undefined,
      prefix: NO_KEYS,
      regexDir: NO_KEYS,
      keyLengths: NO_LENGTHS,
      leadLength: 1,
      leadKey: pathKey("/"),
      other: NO_POSITIONS,
    };
  }
  const exact = new Map<string, Positions>();
  const rootPrefix: number[] = [];
  const prefix = new Map<number, Positions>();
  const regexDir = new Map<number, Positions>();
  const other: number[] = [];
  const into = <K>(bucket: Map<K, Positions>, key: K, position: number) => {
    const held = bucket.get(key) as number | number[] | undefined; // no splits until below
    if (held === undefined) bucket.set(key, position);
    else if (typeof held === "number") bucket.set(key, [held, position]);
    else held.push(position);
  };
  // Flags by key length, grown as keys come (a host's longest prefix is rarely above a few dozen characters).
  let keyLengths = new Uint8Array(32);
  const flagLength = (length: number, flag: number) => {
    if (length >= keyLengths.length) {
      const grown = new Uint8Array(Math.max(length + 1, keyLengths.length * 2));
      grown.set(keyLengths);
      keyLengths = grown;
    }
    keyLengths[length]! |= flag;
  };
  // The start every prefix and regex directory seen so far shares.
  let lead: string | undefined;
  const narrowLead = (value: string) => {
    if (lead === undefined) lead = value;
    else {
      let same = 0;
      while (same < lead.length && same < value.length && lead.charCodeAt(same) === value.charCodeAt(same)) same++;
      lead = lead.slice(0, same);
    }
  };
  for (let position = 0; position < candidates.length; position++) {
    const { path } = candidates[position]!.match;
    if (path.type === "Exact") into(exact, path.value, position);
    else if (path.type === "PathPrefix" && path.value === "/") rootPrefix.push(position);
    // Compiled prefixes carry no trailing slash (except "/"); anything else is left to the residual scan.
    else if (path.type === "PathPrefix" && !path.value.endsWith("/")) {
      into(prefix, pathKey(path.value), position);
      flagLength(path.value.length, HAS_PREFIX);
      narrowLead(path.value);
    } else {
      const directory = path.type === "RegularExpression" ? literalDirectory(path.value) : null;
      if (directory === null) other.push(position);
      else {
        into(regexDir, pathKey(directory), position);
        flagLength(directory.length, HAS_REGEX_DIR);
        narrowLead(directory);
      }
    }
  }
  // Long lists are split by a header's value where that pays off (replacing a key's value keeps iterating).
  const splitLong = <K>(bucket: Map<K, Positions>) => {
    for (const [key, list] of bucket) if (Array.isArray(list) && list.length > SCAN_BELOW) bucket.set(key, splitByHeader(list, candidates));
  };
  splitLong(exact);
  splitLong(prefix);
  splitLong(regexDir);
  let longest = keyLengths.length - 1;
  while (longest >= 0 && keyLengths[longest] === 0) longest--;
  // Every path starts with "/", so the pass starts after it at least.
  const shared = lead !== undefined && lead.length > 1 ? lead : "/";
  return {
    candidates,
    exact: exact.size > 0 ? exact : NO_PATHS,
    rootPrefix: rootPrefix.length > 0 ? splitByHeader(rootPrefix, candidates) : undefined,
    prefix: prefix.size > 0 ? prefix : NO_KEYS,
    regexDir: regexDir.size > 0 ? regexDir : NO_KEYS,
    // Trimmed: firstHolding reads the path no further than the longest key.
    keyLengths: keyLengths.subarray(0, longest + 1),
    leadLength: shared.length,
    leadKey: pathKey(shared),
    other: other.length > 0 ? splitByHeader(other, candidates) : NO_POSITIONS,
  };
}

/** The first holding candidate among `positions` (ascending) that is before `best`; `best` when there is none. */
function scanList(
  candidates: PreparedMatch[],
  positions: number[] | undefined,
  best: number,
  req: RequestFacts,
  readName?: string,
  readValue: string | null = null,
): number {
  if (positions === undefined) return best;
  for (let k = 0; k < positions.length; k++) {
    const p = positions[k]!;
    if (p >= best) return best;
    if (matchHolds(candidates[p]!, req, readName, readValue)) return p;
  }
  return best;
}

function scanBefore(candidates: PreparedMatch[], positions: Positions | undefined, best: number, req: RequestFacts): number {
  if (typeof positions === "number") return positions < best && matchHolds(candidates[positions]!, req) ? positions : best;
  if (positions === undefined || Array.isArray(positions)) return scanList(candidates, positions, best, req);
  // Candidates needing another value of the header cannot hold; the two lists together cover the rest.
  // The header read here is handed on, so no candidate reads it again.
  const { name } = positions;
  const value = req.headers.get(name);
  const found = value === null ? best : scanList(candidates, positions.byValue.get(value), best, req, name, value);
  return scanList(candidates, positions.rest, found, req, name, value);
}

/**
 * The position of the first candidate (in precedence order) that holds for the request, or -1. Each
 * bucket is scanned only up to the best position found so far, so the answer equals a full scan's.
 * Prefix and regex buckets are looked up for every segment prefix of the path ("/a", "/a/b", ...), by
 * the key one pass over the path builds.
 */
export function firstHolding(set: CandidateSet, req: RequestFacts): number {
  const { candidates } = set;
  // A short list is cheaper to scan than to look up by path.
  if (candidates.length <= SCAN_BELOW) {
    for (let p = 0; p < candidates.length; p++) if (matchHolds(candidates[p]!, req)) return p;
    return -1;
  }
  const { path } = req;
  const { exact, rootPrefix, prefix, regexDir } = set;
  let best = candidates.length;
  if (exact.size > 0) best = scanBefore(candidates, exact.get(path), best, req);
  if (rootPrefix !== undefined) best = scanBefore(candidates, rootPrefix, best, req);
  const { keyLengths } = set;
  // Only lengths some prefix or regex directory has are looked up, and the path is read no further than the longest.
  const max = keyLengths.length - 1;
  if (max > 0) {
    let key = set.leadKey;
    const end = Math.min(path.length, max + 1);
    let i = set.leadLength;
    for (; i < end; i++) {
      const c = path.charCodeAt(i);
      // key is that of path[0, i): at a "/", a directory of the path.
      const has = c === 47 ? keyLengths[i]! : 0;
      if (has & HAS_PREFIX) {
        const byPrefix = prefix.get(key);
        if (byPrefix !== undefined) best = scanBefore(candidates, byPrefix, best, req);
      }
      if (has & HAS_REGEX_DIR) {
        const byRegex = regexDir.get(key);
        if (byRegex !== undefined) best = scanBefore(candidates, byRegex, best, req);
      }
      key = stepKey(key, c);
    }
    // The whole path as a prefix (key now covers it when the loop read it all).
    if (i === path.length && path.length > 1 && keyLengths[i]! & HAS_PREFIX && path.charCodeAt(i - 1) !== 47) {
      const whole = prefix.get(key);
      if (whole !== undefined) best = scanBefore(candidates, whole, best, req);
    }
  }
  if (!Array.isArray(set.other) || set.other.length > 0) best = scanBefore(candidates, set.other, best, req);
  return best === candidates.length ? -1 : best;
}
