import type { RouteTable, TableHistoryEntry, TablePointer } from "../../src/table/route-table";
import type { KvStore } from "./kv-store";
export interface PushOutcome {
  changed: boolean;
  version: string;
  previous?: string;
  pruned: string[];
}
export declare function readPointer(kv: KvStore, name: string): Promise<TablePointer | null>;
export declare function readHistory(kv: KvStore, name: string): Promise<TableHistoryEntry[]>;
export declare function readTable(kv: KvStore, name: string, version: string): Promise<RouteTable | null>;
/** The table the edge serves now, if any. */
export declare function readCurrentTable(kv: KvStore, name: string): Promise<RouteTable | null>;
/** Writes the table unless the edge already serves exactly this version. */
export declare function pushTable(kv: KvStore, table: RouteTable, now?: Date): Promise<PushOutcome>;
/** Moves the pointer to `version`, or to the version written before the current one. */
export declare function rollbackTable(
  kv: KvStore,
  name: string,
  version: string | undefined,
  now?: Date,
): Promise<{
  from?: string;
  to: string;
}>;
