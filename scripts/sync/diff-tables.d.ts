import type { RouteTable } from "../../src/table/route-table";
export interface TableDiff {
  from?: string;
  to: string;
  rules: {
    added: string[];
    removed: string[];
    changed: string[];
  };
  backends: {
    added: string[];
    removed: string[];
    changed: string[];
  };
  hostsChanged: boolean;
}
export declare function diffTables(current: RouteTable | null, next: RouteTable): TableDiff;
