/**
 * @module A RouteTable made ready for lookups: host maps, backend pools and cumulative weights once per
 * table load; a host's buckets and its matches' compiled regexes once per isolate, when a request first
 * asks for that host. Nothing here is rebuilt per request.
 */
import { type FullMatch, fullMatch } from "./full-match";
import { buildCandidateSet, type CandidateSet } from "./candidate-set";
import { type RuleSlots, slotRule } from "./filter-slots";
import type { HostKeyed } from "./hostname-match";
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
  exact: HostCandidates;
  wildcard: HostCandidates;
  any: CandidateSet;
}

/**
 * Candidate sets by host key, each built the first time a request asks for its host, with its matches'
 * regular expressions: loading a table costs its parse, not the buckets and regexes of every host, and an
 * isolate holds them only for the hosts it serves.
 */
export class HostCandidates implements HostKeyed<CandidateSet> {
  /** The compiled candidate list of a host until it is first asked for, then its candidate set. */
  private readonly entries: Map<string, number[] | CandidateSet>;

  constructor(
    lists: Record<string, number[]>,
    private readonly compiled: CompiledMatch[],
    private readonly prepared: PreparedMatch[],
  ) {
    this.entries = new Map(Object.entries(lists));
  }

  get(host: string): CandidateSet | undefined {
    const entry = this.entries.get(host);
    if (entry === undefined || !Array.isArray(entry)) return entry;
    const set = buildCandidateSet(prepareMatches(entry, this.compiled, this.prepared));
    this.entries.set(host, set);
    return set;
  }
}

/** A match with its regular expressions compiled (full-match, case-sensitive). */
export interface PreparedMatch {
  match: CompiledMatch;
  /**
   * The fields a request reads, copied out of `match` and its path: a request then reads one object
   * where it read four, which counts once a large table no longer fits the CPU caches.
   */
  rule: number;
  pathType: CompiledMatch["path"]["type"];
  pathValue: string;
  method: string | undefined;
  /** Whether the match has header or query parameter conditions. */
  conditions: boolean;
  pathRegex: FullMatch | undefined;
  headerRegex: (FullMatch | undefined)[];
  queryRegex: (FullMatch | undefined)[];
}

export interface PreparedBackend {
  backend: CompiledBackend;
  /** Endpoints that take new traffic (ready, not terminating, weight > 0, not in a draining cluster), wherever the request comes from. */
  pool: EndpointPool;
  /** Pools by request location and health (locality policy, or some endpoints unusable). */
  nearby: PoolCache;
}

export interface PreparedTable {
  table: RouteTable;
  hosts: Partial<Record<Protocol, PreparedHostIndex>>;
  rules: CompiledRule[];
  ruleChoices: WeightedChoice[];
  backends: Map<string, PreparedBackend>;
  /**
   * The ports listeners of a protocol use, when more than one: a request on one of them is served by that
   * port's listeners only; a request on another port as if listener ports did not matter.
   */
  listenerPorts: Partial<Record<Protocol, ReadonlySet<number>>>;
  /** Each rule's filters in slots, built when a request first uses the rule (see slotsOf). */
  ruleSlots: (RuleSlots | undefined)[];
}

/** A rule's filters sorted into slots, made once per rule. */
export function slotsOf(prepared: PreparedTable, ruleIndex: number): RuleSlots {
  return (prepared.ruleSlots[ruleIndex] ??= slotRule(prepared.rules[ruleIndex]!));
}

/** A match made ready: its regular expressions compiled, once. */
export function prepareMatch(match: CompiledMatch): PreparedMatch {
  return {
    match,
    rule: match.rule,
    pathType: match.path.type,
    pathValue: match.path.value,
    method: match.method,
    conditions: match.headers.length > 0 || match.queryParams.length > 0,
    pathRegex: match.path.type === "RegularExpression" ? fullMatch(match.path.value) : undefined,
    headerRegex: match.headers.map((h) => (h.type === "RegularExpression" ? fullMatch(h.value) : undefined)),
    queryRegex: match.queryParams.map((q) => (q.type === "RegularExpression" ? fullMatch(q.value) : undefined)),
  };
}

/** The matches a candidate list names, each prepared once however many hosts name it. */
function prepareMatches(list: number[], compiled: CompiledMatch[], prepared: PreparedMatch[]): PreparedMatch[] {
  return list.map((i) => (prepared[i] ??= prepareMatch(compiled[i]!)));
}

function prepareHostIndex(index: HostIndex, compiled: CompiledMatch[], prepared: PreparedMatch[]): PreparedHostIndex {
  return {
    exact: new HostCandidates(index.exact, compiled, prepared),
    wildcard: new HostCandidates(index.wildcard, compiled, prepared),
    any: buildCandidateSet(prepareMatches(index.any, compiled, prepared)),
  };
}

/** Builds the lookup structures for a parsed table. */
export function prepareTable(table: RouteTable): PreparedTable {
  const hosts: PreparedTable["hosts"] = {};
  // By match index, shared by the hosts: a match is prepared when the first host that has it is asked for (the catch-all's at load).
  const matches = new Array<PreparedMatch>(table.matches.length);
  for (const [protocol, index] of Object.entries(table.hosts) as [Protocol, HostIndex][])
    hosts[protocol] = prepareHostIndex(index, table.matches, matches);
  const backends = new Map<string, PreparedBackend>();
  // A draining cluster's endpoints keep their pinned sessions (sticky-session.ts) and take nothing new.
  const draining = new Set(Object.keys(table.clusters ?? {}).filter((name) => table.clusters![name]!.draining));
  for (const backend of Object.values(table.backends)) {
    const eligible = backend.endpoints.filter((e) => takesNewTraffic(e) && !draining.has(e.cluster));
    backends.set(backend.id, { backend, pool: poolOf(eligible), nearby: new PoolCache() });
  }
  return {
    table,
    hosts,
    rules: table.rules,
    ruleChoices: table.rules.map((r) => weightedChoice(r.backendRefs.map((b) => b.weight))),
    backends,
    ruleSlots: new Array<RuleSlots | undefined>(table.rules.length),
    listenerPorts: Object.fromEntries(
      (["HTTP", "HTTPS"] as const).flatMap((p) => {
        const ports = new Set(table.listeners.filter((l) => l.protocol === p).map((l) => l.port));
        return ports.size > 1 ? [[p, ports]] : [];
      }),
    ),
  };
}
