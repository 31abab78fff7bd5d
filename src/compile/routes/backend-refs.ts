/**
 * @module A rule's backendRefs: each one's weight and filters, and its target resolved to a table backend
 * (backends/targets.ts). An unresolvable ref keeps its weight and answers 500 at the edge; the route gets
 * ResolvedRefs=False with the Gateway API reason.
 */
import { REASON } from "../status/conditions";
import type { CompiledBackendRef } from "../../table/route-table";
import { type BackendContext, resolveTarget, type RouteScope } from "../backends/targets";
import type { HTTPBackendRef } from "../input/typed-objects";
import { type FieldProblem, isProblem } from "../status/problems";
import { compileFilters, type FilterContext } from "./filters";
import { kept } from "../kept";
import type { MatchDraft } from "./route-matches";

export type { BackendContext, RouteScope };

/** What resolving one rule's refs produced. */
export interface ResolvedBackendRefs {
  refs: CompiledBackendRef[];
  /** ResolvedRefs problems (the route stays accepted). */
  unresolved: FieldProblem[];
  /** Resolved, but not in every cluster of the route (a cluster without the Service contributes nothing). */
  partial: FieldProblem[];
  /** A problem that rejects the whole route (a filter it cannot have). */
  rejected?: FieldProblem;
}

/** The context a rule's (or a backendRef's) filters compile in: mirrors resolve like backendRefs. */
export function filterContext(
  ctx: BackendContext,
  scope: RouteScope,
  matches: MatchDraft[],
  unresolved: FieldProblem[],
  level: FilterContext["level"],
): FilterContext {
  return { matches, unresolved, level, resolveMirror: (ref, at) => resolveTarget(ctx, scope, ref, at) };
}

/** Resolves `rules[i].backendRefs`. */
export function resolveBackendRefs(
  ctx: BackendContext,
  scope: RouteScope,
  raw: HTTPBackendRef[] | undefined,
  at: string,
  matches: MatchDraft[],
): ResolvedBackendRefs {
  const result: ResolvedBackendRefs = { refs: [], unresolved: [], partial: [] };
  for (const [i, ref] of (raw ?? []).entries()) {
    const here = `${at}[${i}]`;
    // A null weight passes the schema: the default, as when it is left out.
    const weight = ref.weight ?? 1;
    const filters = compileFilters(ref.filters, `${here}.filters`, filterContext(ctx, scope, matches, result.unresolved, "backendRef"));
    if (isProblem(filters)) {
      result.rejected = filters;
      return result;
    }
    const resolved = resolveTarget(ctx, scope, ref, here);
    if (isProblem(resolved)) {
      result.unresolved.push(resolved);
      // Fields in sorted order, as the table's objects are built (canonicalJson writes them without a copy).
      result.refs.push({ filters, invalid: { message: resolved.message, reason: resolved.reason }, weight });
      continue;
    }
    result.refs.push({ backend: resolved.backend, filters, weight });
    if (resolved.missing) {
      const serving = resolved.from ?? scope.clusters.filter((c) => !resolved.missing?.some((m) => m.cluster === c));
      const gaps = resolved.missing.map((m) => `in cluster ${m.cluster}: ${m.why}`).join("; ");
      result.partial.push({
        field: `${here}.name`,
        reason: REASON.BackendNotFound,
        message: `${gaps}; this backendRef draws its endpoints from ${serving.join(", ")} only`,
      });
    }
  }
  result.refs = kept(result.refs);
  return result;
}
