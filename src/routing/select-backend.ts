/**
 * @module Weighted choice of a rule's backendRef (route level), then of an endpoint inside the chosen
 * backend (backend level). The two stay separate, as GEP-1282 asks.
 */
import type { CompiledBackendRef, CompiledEndpoint } from "../table/route-table";
import { nearestPool, type RequestLocation } from "./locality";
import type { PreparedBackend, PreparedTable } from "./prepared-table";
import { pickWeighted, weightedChoice } from "./weighted-choice";

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

/**
 * Picks an endpoint of a backend by weight among those taking new traffic, or null when none is ready.
 * With a locality policy, only the nearest clusters that have enough ready endpoints take part.
 */
export function pickEndpoint(
  prepared: PreparedTable,
  backend: PreparedBackend,
  random: number,
  at: RequestLocation = {},
  avoid?: (e: CompiledEndpoint) => boolean,
): CompiledEndpoint | null {
  const policy = prepared.table.locality;
  const pool = policy ? backend.nearby.get(at, () => nearestPool(policy, backend.pool.endpoints, at)) : backend.pool;
  if (avoid && pool.endpoints.some(avoid)) {
    // Some endpoints are to be avoided (ejected, or already tried): choose among the rest, if any.
    const rest = pool.endpoints.filter((e) => !avoid(e));
    return rest[pickWeighted(weightedChoice(rest.map((e) => e.weight)), random)] ?? null;
  }
  return pool.endpoints[pickWeighted(pool.choice, random)] ?? null;
}
