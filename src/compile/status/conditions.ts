/**
 * @module The conditions kedge writes, and the reasons it writes them with: built here and nowhere else, as
 * Envoy Gateway's status/conditions.go builds its own and worker/errors.ts lists the Worker's wire codes.
 * Reasons are the Gateway API's names where it has one (spec §status), else kedge's own, all named in
 * src/table/reasons.ts (the table carries a backendRef's reason to the Worker, which names them too).
 */
import { REASON, type Reason } from "../../table/reasons";
import type { Condition } from "./diagnostics";
import type { FieldProblem } from "./problems";

export { REASON, type Reason };

/** A condition that holds. */
export const holds = (type: string, reason: Reason, message = ""): Condition => ({ type, status: "True", reason, message });

/** A condition that does not hold, with why. */
export const fails = (type: string, reason: Reason, message: string): Condition => ({ type, status: "False", reason, message });

/** `Accepted=True Accepted`, with what the object does at the edge. */
export const accepted = (message = ""): Condition => holds("Accepted", REASON.Accepted, message);

/** `Programmed=True Programmed`. */
export const programmed = (): Condition => holds("Programmed", REASON.Programmed);

/** `ResolvedRefs=True ResolvedRefs`. */
export const resolved = (): Condition => holds("ResolvedRefs", REASON.ResolvedRefs);

/** A field the edge cannot use as written: `UnsupportedValue`, the most common problem by far. */
export const unsupported = (field: string, message: string): FieldProblem => ({ field, reason: REASON.UnsupportedValue, message });
