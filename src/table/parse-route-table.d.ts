/**
 * @module Parses a RouteTable read from KV. The Worker trusts nothing it reads: a blob of another
 * schema version or a malformed one is rejected with a reason, and the caller keeps the last good table.
 */
import { type RouteTable, type TableHistoryEntry, type TablePointer } from "./route-table";
export type ParseResult<T> =
  | {
      ok: true;
      value: T;
    }
  | {
      ok: false;
      reason: string;
    };
/** Checks the structure the Worker relies on; field-level semantics were validated at compile time. */
export declare function parseRouteTable(raw: unknown): ParseResult<RouteTable>;
export declare function parseTablePointer(raw: unknown): ParseResult<TablePointer>;
export declare function parseTableHistory(raw: unknown): ParseResult<TableHistoryEntry[]>;
