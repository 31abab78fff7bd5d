/**
 * @module A RouteTable made ready for lookups, once per table load: host maps, compiled regexes,
 * cumulative weights. Nothing here is rebuilt per request.
 */
import type { CompiledBackend, CompiledEndpoint, CompiledMatch, CompiledRule, HostIndex, Protocol, RouteTable } from "../table/route-table";

export interface PreparedHostIndex {
  exact: Map<string, number[]>;
  wildcard: Map<string, number[]>;
  any: number[];
}

/** A match with its regular expressions compiled (full-match, case-sensitive). */
export interface PreparedMatch {
  match: CompiledMatch;
  pathRegex?: RegExp;
  headerRegex: (RegExp | undefined)[];
  queryRegex: (RegExp | undefined)[];
}

/** Cumulative weights for one weighted choice; `total` 0 means nothing may be chosen. */
export interface WeightedChoice {
  cumulative: number[];
  total: number;
}

export interface PreparedBackend {
  backend: CompiledBackend;
  /** Endpoints that take new traffic: ready and not terminating, weight > 0. */
  eligible: CompiledEndpoint[];
  choice: WeightedChoice;
}

export interface PreparedTable {
  table: RouteTable;
  hosts: Partial<Record<Protocol, PreparedHostIndex>>;
  matches: PreparedMatch[];
  rules: CompiledRule[];
  ruleChoices: WeightedChoice[];
  backends: Map<string, PreparedBackend>;
}

const fullMatch = (pattern: string): RegExp => new RegExp(`^(?:${pattern})$`, "u");

export function weightedChoice(weights: number[]): WeightedChoice {
  const cumulative: number[] = [];
  let total = 0;
  for (const w of weights) {
    total += Math.max(0, w);
    cumulative.push(total);
  }
  return { cumulative, total };
}

function prepareHostIndex(index: HostIndex): PreparedHostIndex {
  return { exact: new Map(Object.entries(index.exact)), wildcard: new Map(Object.entries(index.wildcard)), any: index.any };
}

/** Builds the lookup structures for a parsed table. */
export function prepareTable(table: RouteTable): PreparedTable {
  const hosts: PreparedTable["hosts"] = {};
  for (const [protocol, index] of Object.entries(table.hosts) as [Protocol, HostIndex][]) hosts[protocol] = prepareHostIndex(index);
  const matches = table.matches.map((match) => ({
    match,
    pathRegex: match.path.type === "RegularExpression" ? fullMatch(match.path.value) : undefined,
    headerRegex: match.headers.map((h) => (h.type === "RegularExpression" ? fullMatch(h.value) : undefined)),
    queryRegex: match.queryParams.map((q) => (q.type === "RegularExpression" ? fullMatch(q.value) : undefined)),
  }));
  const backends = new Map<string, PreparedBackend>();
  for (const backend of Object.values(table.backends)) {
    const eligible = backend.endpoints.filter((e) => e.ready && !e.terminating && e.weight > 0);
    backends.set(backend.id, { backend, eligible, choice: weightedChoice(eligible.map((e) => e.weight)) });
  }
  return {
    table,
    hosts,
    matches,
    rules: table.rules,
    ruleChoices: table.rules.map((r) => weightedChoice(r.backendRefs.map((b) => b.weight))),
    backends,
  };
}
