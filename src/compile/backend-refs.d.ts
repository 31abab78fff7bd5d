/**
 * @module Resolves a rule's backendRefs to table backends. An unresolvable ref keeps its weight and
 * answers 500 at the edge; the route gets ResolvedRefs=False with the Gateway API reason.
 */
import { type Manifest } from "../gateway-api/manifest";
import type { CompiledBackend, CompiledBackendRef } from "../table/route-table";
import type { EdgeConfig } from "./edge-config";
import type { FieldProblem, MatchDraft } from "./route-matches";
import type { ResourceIndex } from "./resource-index";
export declare const GATEWAY_GROUP = "gateway.networking.k8s.io";
/** What resolving one rule's refs produced. */
export interface ResolvedBackendRefs {
  refs: CompiledBackendRef[];
  /** ResolvedRefs problems (the route stays accepted). */
  unresolved: FieldProblem[];
  /** A problem that rejects the whole route (a malformed ref or filter). */
  rejected?: FieldProblem;
}
export interface BackendContext {
  index: ResourceIndex;
  edge: EdgeConfig;
  /** Backends found so far, by id; shared by every rule so each backend is compiled once. */
  backends: Map<string, CompiledBackend>;
}
/** Resolves `rules[i].backendRefs`. */
export declare function resolveBackendRefs(
  ctx: BackendContext,
  route: Manifest,
  raw: unknown,
  at: string,
  matches: MatchDraft[],
): ResolvedBackendRefs;
