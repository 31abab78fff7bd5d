/**
 * @module Weighted choice of a rule's backendRef (route level), then of an endpoint inside the chosen
 * backend (backend level). The two stay separate, as GEP-1282 asks.
 */
import type { CompiledBackendRef, CompiledEndpoint } from "../table/route-table";
import type { PreparedBackend, PreparedTable, WeightedChoice } from "./prepared-table";

/** Index picked by weight for a random number in [0, 1), or -1 when every weight is 0. */
export function pickWeighted(choice: WeightedChoice, random: number): number {
  if (choice.total <= 0) return -1;
  const target = random * choice.total;
  const { cumulative } = choice;
  let lo = 0;
  let hi = cumulative.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (target < cumulative[mid]!) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

export type BackendChoice =
  | { kind: "backend"; ref: CompiledBackendRef; backend: PreparedBackend }
  | { kind: "invalid"; ref: CompiledBackendRef; reason: string }
  | { kind: "none" };

/** Picks a backendRef of a rule by weight. Weight 0 never gets new traffic; an invalid ref keeps its share. */
export function pickBackend(prepared: PreparedTable, ruleIndex: number, random: number): BackendChoice {
  const rule = prepared.rules[ruleIndex];
  const choice = prepared.ruleChoices[ruleIndex];
  if (!rule || !choice) return { kind: "none" };
  const ref = rule.backendRefs[pickWeighted(choice, random)];
  if (!ref) return { kind: "none" };
  const backend = ref.backend ? prepared.backends.get(ref.backend) : undefined;
  if (!backend) return { kind: "invalid", ref, reason: ref.invalid?.reason ?? "BackendNotFound" };
  return { kind: "backend", ref, backend };
}

/** Picks an endpoint of a backend by weight among those taking new traffic, or null when none is ready. */
export function pickEndpoint(backend: PreparedBackend, random: number): CompiledEndpoint | null {
  return backend.eligible[pickWeighted(backend.choice, random)] ?? null;
}
