/** @module Prints what the compile found, per cluster and object, the way a controller's status reads. */
import { type Diagnostic, type ResourceStatus } from "../../src/compile/diagnostics";
import type { RouteTable } from "../../src/table/route-table";
import type { SkippedDocument } from "../../src/gateway-api/parse-manifests";
export interface ReportInput {
  table: RouteTable;
  statuses: ResourceStatus[];
  diagnostics: Diagnostic[];
  skipped: SkippedDocument[];
  clusters: string[];
  verbose?: boolean;
}
/** Human-readable report, grouped by cluster and object. */
export declare function formatReport(input: ReportInput): string;
