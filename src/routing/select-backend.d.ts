/**
 * @module Weighted choice of a rule's backendRef (route level), then of an endpoint inside the chosen
 * backend (backend level). The two stay separate, as GEP-1282 asks.
 */
import type { CompiledBackendRef, CompiledEndpoint } from "../table/route-table";
import type { PreparedBackend, PreparedTable, WeightedChoice } from "./prepared-table";
/** Index picked by weight for a random number in [0, 1), or -1 when every weight is 0. */
export declare function pickWeighted(choice: WeightedChoice, random: number): number;
export type BackendChoice =
  | {
      kind: "backend";
      ref: CompiledBackendRef;
      backend: PreparedBackend;
    }
  | {
      kind: "invalid";
      ref: CompiledBackendRef;
      reason: string;
    }
  | {
      kind: "none";
    };
/** Picks a backendRef of a rule by weight. Weight 0 never gets new traffic; an invalid ref keeps its share. */
export declare function pickBackend(prepared: PreparedTable, ruleIndex: number, random: number): BackendChoice;
/** Picks an endpoint of a backend by weight among those taking new traffic, or null when none is ready. */
export declare function pickEndpoint(backend: PreparedBackend, random: number): CompiledEndpoint | null;
