/**
 * @module Which session persistence (GEP-1619) a route rule gets. Gateway API v1.7 lets it be written in
 * three places, and kedge takes the first that says something, in this order:
 *   1. the rule's backends' own: an XBackend's `spec.sessionPersistence`, v1.7's attachment point. A
 *      backend's properties belong to its owner (GEP-1282, GEP-4894), and one backend serves many routes
 *      in many clusters: a route's owner does not get to change how its sessions work.
 *   2. the rule's own `sessionPersistence` (deprecated in v1.7).
 *   3. a policy on the rule's backends: BackendLBPolicy or XBackendTrafficPolicy (deprecated in v1.7). The
 *      rule's own came before a policy's in every release before v1.7 (GEP-1619), and still does.
 * A place that says something else than the one that applies is reported (a Conflicted warning), never
 * dropped in silence; a rule's own setting is also named as deprecated (an info). Sessions stay scoped to
 * the rule whichever place they come from: two rules on one XBackend never share one.
 */
import type { Manifest } from "../../gateway-api/manifest";
import type { CompiledBackendRef, CompiledSession, SourceRef } from "../../table/route-table";
import type { BackendSession } from "../backends/backend-policies";
import { compileSession, parseSessionPersistence, sameSettings, type SessionSettings } from "../backends/session-persistence";
import type { BackendContext } from "../backends/targets";
import type { HTTPRouteRule } from "../input/typed-objects";
import { REASON } from "../status/conditions";
import { type FieldProblem, isProblem } from "../status/problems";

/** What a rule's session persistence tells besides its result, held until the route is known to be served. */
export interface SessionFindings {
  warnings: FieldProblem[];
  notes: FieldProblem[];
}

/** The compiled backends a rule's resolved refs name (an unresolved ref names none). */
function backendSources(ctx: BackendContext, refs: CompiledBackendRef[]): SourceRef[] {
  return refs.flatMap((r) => {
    const backend = r.backend ? ctx.backends.get(r.backend) : undefined;
    return backend ? [backend.source] : [];
  });
}

/** The deprecation of a rule's own setting, and where v1.7 wants it instead. */
function inlineDeprecation(field: string, sources: SourceRef[]): FieldProblem {
  const instead = sources.some((s) => s.kind === "XBackend")
    ? "declare it on the XBackend (spec.sessionPersistence)"
    : "declare it on the backend (an XBackend's spec.sessionPersistence, or a policy on a Service)";
  return {
    field,
    reason: REASON.Deprecated,
    message: `Gateway API v1.7 deprecates sessionPersistence on a route rule (GEP-1619: it belongs to the backend); kedge still applies it; ${instead}`,
  };
}

/** Two backends of the rule (or two clusters' copies of one) that disagree: the winner applies to the whole rule. */
function backendsDisagree(field: string, winner: BackendSession, other: BackendSession): FieldProblem {
  const order = winner.own && !other.own ? " (a backend's own comes before a policy's)" : "";
  return {
    field,
    reason: REASON.Conflicted,
    message: `backends of this rule carry different session persistence (${winner.from} and ${other.from}); ${winner.from} applies to the whole rule${order}`,
  };
}

/** A rule's session persistence from its backends (`winner` over every other they declare), with what disagrees. */
function fromBackends(
  winner: BackendSession,
  declared: BackendSession[],
  inline: SessionSettings | undefined,
  at: string,
  findings: SessionFindings,
): SessionSettings {
  const other = declared.find((d) => !sameSettings(d.settings, winner.settings));
  if (other) findings.warnings.push(backendsDisagree(`${at}.backendRefs`, winner, other));
  if (inline && !sameSettings(inline, winner.settings)) {
    findings.warnings.push({
      field: `${at}.sessionPersistence`,
      reason: REASON.Conflicted,
      message: `${winner.from} declares its own sessionPersistence, which applies to this rule (Gateway API v1.7: it belongs to the backend); the rule's own is not used`,
    });
  }
  return winner.settings;
}

/** A rule's own session persistence, over its backends' policies, unless its name is another backend's. */
function fromRule(
  ctx: BackendContext,
  inline: SessionSettings,
  sources: SourceRef[],
  declared: BackendSession[],
  at: string,
  findings: SessionFindings,
): SessionSettings | undefined {
  const taken = ctx.policies.claimSessionName(inline, sources);
  if (taken) {
    findings.warnings.push({
      field: `${at}.sessionPersistence`,
      reason: REASON.Conflicted,
      message: `${taken}: one session name serves one backend, so this rule keeps no session persistence (name it differently)`,
    });
    return undefined;
  }
  const overridden = declared.find((d) => !sameSettings(d.settings, inline));
  if (overridden) {
    findings.warnings.push({
      field: `${at}.sessionPersistence`,
      reason: REASON.Conflicted,
      message: `the rule's own sessionPersistence applies, not the one ${overridden.from} sets on its backends (a rule's comes before a policy's)`,
    });
  }
  return inline;
}

/**
 * A rule's session persistence, or the problem that makes the rule unusable (an invalid own setting).
 * Its scope keeps its sessions apart from every other rule's.
 */
export function ruleSession(
  ctx: BackendContext,
  route: Manifest,
  raw: HTTPRouteRule,
  index: number,
  refs: CompiledBackendRef[],
  findings: SessionFindings,
): CompiledSession | undefined | FieldProblem {
  const at = `spec.rules[${index}]`;
  const sources = backendSources(ctx, refs);
  // Per backendRef, and for a backend in several clusters per cluster, in that order.
  const declared = sources.flatMap((s) => ctx.policies.forBackend(s));
  let inline: SessionSettings | undefined;
  if (raw.sessionPersistence !== undefined) {
    const parsed = parseSessionPersistence(raw.sessionPersistence, `${at}.sessionPersistence`);
    if (isProblem(parsed)) return parsed;
    inline = parsed;
    findings.notes.push(inlineDeprecation(`${at}.sessionPersistence`, sources));
  }
  const own = declared.find((d) => d.own);
  const policy = declared[0];
  const settings = own
    ? fromBackends(own, declared, inline, at, findings)
    : inline
      ? fromRule(ctx, inline, sources, declared, at, findings)
      : policy && fromBackends(policy, declared, undefined, at, findings);
  if (!settings) return undefined;
  // No cluster in the scope: a served route is one per namespace/name (sameness), and sessions then
  // survive a cluster joining or leaving the route.
  const scope = `${route.metadata.namespace}/${route.metadata.name}/rule/${index}`;
  return compileSession(settings, scope, ctx.edge.sessions.sameSite);
}
