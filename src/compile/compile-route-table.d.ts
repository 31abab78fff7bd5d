/**
 * @module The compiler: resources of every cluster → one RouteTable plus diagnostics and statuses.
 * Pure: no I/O. Stages: index ▸ gateways ▸ routes (attach, validate, resolve backends) ▸ host index ▸ hash.
 */
import type { Manifest } from "../gateway-api/manifest";
import { type RouteTable } from "../table/route-table";
import { type Diagnostic, type ResourceStatus } from "./diagnostics";
import type { EdgeConfig } from "./edge-config";
export interface CompileResult {
  table: RouteTable;
  diagnostics: Diagnostic[];
  statuses: ResourceStatus[];
}
/**
 * Compiles the resources of all clusters into one table. Never throws on a user mistake: an invalid
 * object is left out with a diagnostic and a status condition, and the rest compiles.
 */
export declare function compileRouteTable(edge: EdgeConfig, manifests: Manifest[]): Promise<CompileResult>;
