/**
 * @module What a stage returns instead of a value when a field cannot be used: the field, the Gateway API
 * reason and why. The stage that owns the object turns it into a diagnostic and a condition.
 */
import { isJsonObject } from "../../gateway-api/manifest";
import type { Reason } from "./conditions";

export interface FieldProblem {
  field: string;
  reason: Reason;
  message: string;
  /** What the problem does at the edge, said after the message in diagnostics (e.g. "the mirror is left out"). */
  effect?: string;
}

/** Whether a stage's answer is a problem rather than its value. */
export const isProblem = (v: unknown): v is FieldProblem => isJsonObject(v) && typeof v.reason === "string" && typeof v.field === "string";
