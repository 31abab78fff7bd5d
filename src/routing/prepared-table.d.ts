/**
 * @module A RouteTable made ready for lookups, once per table load: host maps, compiled regexes,
 * cumulative weights. Nothing here is rebuilt per request.
 */
import type { CompiledBackend, CompiledEndpoint, CompiledMatch, CompiledRule, Protocol, RouteTable } from "../table/route-table";
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
export declare function weightedChoice(weights: number[]): WeightedChoice;
/** Builds the lookup structures for a parsed table. */
export declare function prepareTable(table: RouteTable): PreparedTable;
