/**
 * @module A RouteTable made ready for lookups, once per table load: host maps, compiled regexes,
 * cumulative weights. Nothing here is rebuilt per request.
 */
import { buildCandidateSet, type CandidateSet } from "./candidate-set";
import { type EndpointPool, PoolCache, poolOf } from "./locality";
import { type WeightedChoice, weightedChoice } from "./weighted-choice";
import {
  type CompiledBackend,
  type CompiledMatch,
  type CompiledRule,
  type HostIndex,
  type Protocol,
  type RouteTable,
  takesNewTraffic,
} from "../table/route-table";

export interface PreparedHostIndex {
  exact: Map<string, CandidateSet>;
  wildcard: Map<string, CandidateSet>;
  any: CandidateSet;
}

/** A match with its regular expressions compiled (full-match, case-sensitive). */
export interface PreparedMatch {
  match: CompiledMatch;
  pathRegex: RegExp | undefined;
  headerRegex: (RegExp | undefined)[];
  queryRegex: (RegExp | undefined)[];
}

export interface PreparedBackend {
  backend: CompiledBackend;
  /** Endpoints that take new traffic (ready, not terminating, weight > 0), wherever the request comes from. */
  pool: EndpointPool;
  /** Pools by request location, when the table has a locality policy. */
  nearby: PoolCache;
}

export interface PreparedTable {
  table: RouteTable;
  hosts: Partial<Record<Protocol, PreparedHostIndex>>;
  matches: PreparedMatch[];
  rules: CompiledRule[];
  ruleChoices: WeightedChoice[];
  backends: Map<string, PreparedBackend>;
  /** Whether listeners of a protocol use more than one port (then the request's port picks among them). */
  multiPort: Partial<Record<Protocol, boolean>>;
  /** Endpoints the active health checks found unhealthy; refreshed with the table pointer. */
  unhealthy: Set<string>;
}

const fullMatch = (pattern: string): RegExp => new RegExp(`^(?:${pattern})$`, "u");

/** A match made ready: its regular expressions compiled once, per table load. */
export function prepareMatch(match: CompiledMatch): PreparedMatch {
  return {
    match,
    pathRegex: match.path.type === "RegularExpression" ? fullMatch(match.path.value) : undefined,
    headerRegex: match.headers.map((h) => (h.type === "RegularExpression" ? fullMatch(h.value) : undefined)),
    queryRegex: match.queryParams.map((q) => (q.type === "RegularExpression" ? fullMatch(q.value) : undefined)),
  };
}

function prepareHostIndex(index: HostIndex, matches: CompiledMatch[]): PreparedHostIndex {
  const sets = (record: Record<string, number[]>) => new Map(Object.entries(record).map(([k, v]) => [k, buildCandidateSet(v, matches)]));
  return { exact: sets(index.exact), wildcard: sets(index.wildcard), any: buildCandidateSet(index.any, matches) };
}

/** Builds the lookup structures for a parsed table. */
export function prepareTable(table: RouteTable): PreparedTable {
  const hosts: PreparedTable["hosts"] = {};
  for (const [protocol, index] of Object.entries(table.hosts) as [Protocol, HostIndex][])
    hosts[protocol] = prepareHostIndex(index, table.matches);
  const matches = table.matches.map(prepareMatch);
  const backends = new Map<string, PreparedBackend>();
  for (const backend of Object.values(table.backends)) {
    const eligible = backend.endpoints.filter(takesNewTraffic);
    backends.set(backend.id, { backend, pool: poolOf(eligible), nearby: new PoolCache() });
  }
  return {
    table,
    hosts,
    matches,
    rules: table.rules,
    ruleChoices: table.rules.map((r) => weightedChoice(r.backendRefs.map((b) => b.weight))),
    backends,
    unhealthy: new Set(),
    multiPort: Object.fromEntries(
      (["HTTP", "HTTPS"] as const).map((p) => [p, new Set(table.listeners.filter((l) => l.protocol === p).map((l) => l.port)).size > 1]),
    ),
  };
}
