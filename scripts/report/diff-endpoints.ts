/**
 * @module What a new table changes inside a backend and a rule, in words a person reads: a backend's endpoints
 * added or removed, those that stop or start taking traffic (ready, not ready, terminating) and those whose
 * weight changed (a cluster's weight in kedge.yaml); a rule's backendRef weights, named by backend. The raw
 * field paths (`endpoints[3].ready`) move with every endpoint added before them, so they say little.
 */
import type { CompiledBackend, CompiledEndpoint, CompiledRule } from "../../src/table/route-table";

/** Whether an endpoint takes new requests, and if not, why. */
export type EndpointCondition = "ready" | "not ready" | "terminating";

export interface EndpointChanges {
  /** Endpoint ids (`<cluster>/<host>:<port>`). */
  added: string[];
  removed: string[];
  /** Endpoints on both sides whose condition changed. */
  conditions: { id: string; from: EndpointCondition; to: EndpointCondition }[];
  weights: { id: string; from: number; to: number }[];
  /** Other fields of an endpoint on both sides: `<id> <field>: old → new`. */
  other: string[];
}

/** A backendRef of a rule whose weight changed, named by the backend it sends to. */
export interface WeightChange {
  /** The backend id, or `(backendRef i, unresolved)`. */
  backend: string;
  from: number;
  to: number;
}

export function endpointCondition(e: CompiledEndpoint): EndpointCondition {
  if (e.terminating) return "terminating";
  return e.ready ? "ready" : "not ready";
}

/** The endpoint without what `EndpointChanges` already says in words. */
function restOf(e: CompiledEndpoint): Record<string, unknown> {
  const { ready: _ready, serving: _serving, terminating: _terminating, weight: _weight, ...rest } = e;
  return rest;
}

/** How the endpoints of one backend changed; null when they did not. */
export function endpointChanges(
  before: CompiledBackend,
  after: CompiledBackend,
  fields: (a: unknown, b: unknown) => string[],
): EndpointChanges | null {
  const was = new Map(before.endpoints.map((e) => [e.id, e]));
  const is = new Map(after.endpoints.map((e) => [e.id, e]));
  const changes: EndpointChanges = {
    added: [...is.keys()].filter((id) => !was.has(id)).sort(),
    removed: [...was.keys()].filter((id) => !is.has(id)).sort(),
    conditions: [],
    weights: [],
    other: [],
  };
  for (const [id, e] of [...is].sort(([a], [b]) => a.localeCompare(b))) {
    const old = was.get(id);
    if (!old) continue;
    const [from, to] = [endpointCondition(old), endpointCondition(e)];
    if (from !== to) changes.conditions.push({ id, from, to });
    if (old.weight !== e.weight) changes.weights.push({ id, from: old.weight, to: e.weight });
    changes.other.push(...fields(restOf(old), restOf(e)).map((f) => `${id} ${f}`));
  }
  const changed = changes.added.length + changes.removed.length + changes.conditions.length + changes.weights.length + changes.other.length;
  return changed > 0 ? changes : null;
}

const refName = (rule: CompiledRule, i: number): string => rule.backendRefs[i]?.backend ?? `(backendRef ${i}, unresolved)`;

/** The backendRefs of a rule whose weight changed (paired by position, when both name the same backend). */
export function weightChanges(before: CompiledRule, after: CompiledRule): WeightChange[] {
  const changes: WeightChange[] = [];
  after.backendRefs.forEach((ref, i) => {
    const old = before.backendRefs[i];
    if (old && old.backend === ref.backend && old.weight !== ref.weight)
      changes.push({ backend: refName(after, i), from: old.weight, to: ref.weight });
  });
  return changes;
}

/** The rule with the weights `weightChanges` names left out, so the field diff does not say them twice. */
export function withoutChangedWeights(rule: CompiledRule, changes: WeightChange[]): unknown {
  if (changes.length === 0) return rule;
  return {
    ...rule,
    backendRefs: rule.backendRefs.map((ref, i) => {
      if (!changes.some((c) => c.backend === refName(rule, i))) return ref;
      const { weight: _weight, ...rest } = ref;
      return rest;
    }),
  };
}

/** One line per endpoint change, at most `limit` (the rest counted); JSON lists every one. */
export function endpointLines(changes: EndpointChanges, limit = 12): string[] {
  const lines = [
    ...changes.added.map((id) => `+ endpoint ${id}`),
    ...changes.removed.map((id) => `- endpoint ${id}`),
    ...changes.conditions.map((c) => `~ endpoint ${c.id}: ${c.from} → ${c.to}`),
    ...changes.weights.map((w) => `~ endpoint ${w.id}: weight ${w.from} → ${w.to}`),
    ...changes.other.map((o) => `~ endpoint ${o}`),
  ];
  return lines.length > limit ? [...lines.slice(0, limit - 1), `… and ${lines.length - limit + 1} more (-o json lists them all)`] : lines;
}

/** "+2 endpoints, -1, 1 not ready, 1 ready, 2 weights": one backend's endpoint changes, counted. */
export function endpointCounts(changes: EndpointChanges): string[] {
  const parts: string[] = [];
  const plural = (n: number, noun: string) => `${n} ${noun}${n === 1 ? "" : "s"}`;
  if (changes.added.length > 0) parts.push(`+${plural(changes.added.length, "endpoint")}`);
  if (changes.removed.length > 0) parts.push(`-${plural(changes.removed.length, "endpoint")}`);
  const became = new Map<EndpointCondition, number>();
  for (const c of changes.conditions) became.set(c.to, (became.get(c.to) ?? 0) + 1);
  for (const [condition, n] of became) parts.push(`${n} ${condition}`);
  if (changes.weights.length > 0) parts.push(`${plural(changes.weights.length, "endpoint weight")} changed`);
  return parts;
}
