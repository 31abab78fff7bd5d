/**
 * @module HTTPRoutes: validates each route, attaches it to listeners through its parentRefs
 * (sectionName, port, allowedRoutes, hostname intersection) and records per-parent conditions.
 */
import { type Manifest } from "../gateway-api/manifest";
import type { CompiledBackendRef, CompiledFilter } from "../table/route-table";
import { type BackendContext } from "./backend-refs";
import { type Diagnostics, type ResourceStatus } from "./diagnostics";
import { type EdgeListener } from "./gateways";
import { type MatchDraft } from "./route-matches";
export interface RuleDraft {
  index: number;
  matches: MatchDraft[];
  filters: CompiledFilter[];
  backendRefs: CompiledBackendRef[];
  timeouts?: {
    requestMs?: number;
    backendRequestMs?: number;
  };
}
/** One accepted route attached to one listener, serving `hostnames` (null: every host). */
export interface Attachment {
  listener: EdgeListener;
  hostnames: string[] | null;
}
export interface RouteDraft {
  manifest: Manifest;
  rules: RuleDraft[];
  attachments: Attachment[];
}
/** Compiles every HTTPRoute that names a Gateway of this edge; returns the accepted ones. */
export declare function compileHTTPRoutes(
  ctx: BackendContext,
  listeners: EdgeListener[],
  diagnostics: Diagnostics,
  statuses: ResourceStatus[],
): RouteDraft[];
