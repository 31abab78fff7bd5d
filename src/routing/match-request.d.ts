/**
 * @module The request matcher: host index lookup, then the first candidate (already in Gateway API
 * precedence) whose path, method, headers and query parameters all hold.
 */
import type { CompiledRule, Protocol } from "../table/route-table";
import type { PreparedHostIndex, PreparedTable } from "./prepared-table";
/** What the matcher looks at. `host` is lower-case without a port; `path` excludes the query. */
export interface RequestFacts {
  protocol: Protocol;
  host: string;
  path: string;
  method: string;
  headers: {
    get(name: string): string | null;
  };
  query: {
    get(name: string): string | null;
  };
}
export interface RouteMatch {
  rule: CompiledRule;
  ruleIndex: number;
  matchId: string;
  /** The matched PathPrefix value, for ReplacePrefixMatch. */
  prefix?: string;
}
/** Candidate match indexes for a host: exact, then the longest wildcard suffix, then the catch-all. */
export declare function candidatesFor(index: PreparedHostIndex, host: string): number[];
/** The rule that handles the request, or null (404). */
export declare function matchRequest(prepared: PreparedTable, req: RequestFacts): RouteMatch | null;
