/**
 * @module Weighted choice of a rule's backendRef (route level). The endpoint inside the chosen backend
 * is chosen apart (endpoint-pool.ts, backend level), as GEP-1282 asks.
 */
import { REASON } from "../table/reasons";
import type { CompiledBackendRef } from "../table/route-table";
import type { PreparedBackend, PreparedTable } from "./prepared-table";
import { pickWeighted } from "./weighted-choice";

export type BackendChoice =
  | { kind: "backend"; ref: CompiledBackendRef; refIndex: number; backend: PreparedBackend }
  | { kind: "invalid"; ref: CompiledBackendRef; reason: string }
  | { kind: "none" };

/** Picks a backendRef of a rule by weight. Weight 0 never gets new traffic; an invalid ref keeps its share. */
export function pickBackend(prepared: PreparedTable, ruleIndex: number, random: number): BackendChoice {
  const rule = prepared.rules[ruleIndex];
  const choice = prepared.ruleChoices[ruleIndex];
  if (!rule || !choice) return { kind: "none" };
  const refIndex = pickWeighted(choice, random);
  const ref = rule.backendRefs[refIndex];
  if (!ref) return { kind: "none" };
  const backend = ref.backend ? prepared.backends.get(ref.backend) : undefined;
  if (!backend) return { kind: "invalid", ref, reason: ref.invalid?.reason ?? REASON.BackendNotFound };
  return { kind: "backend", ref, refIndex, backend };
}
