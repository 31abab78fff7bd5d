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

// The conditions that say nothing more than that they hold are one shared, frozen object each: a table of a
// hundred thousand routes holds a couple of them per route.
const ACCEPTED = Object.freeze(holds("Accepted", REASON.Accepted));
const PROGRAMMED = Object.freeze(holds("Programmed", REASON.Programmed));
const RESOLVED = Object.freeze(holds("ResolvedRefs", REASON.ResolvedRefs));

/** `Accepted=True Accepted`, with what the object does at the edge. */
export const accepted = (message = ""): Condition => (message === "" ? ACCEPTED : holds("Accepted", REASON.Accepted, message));

/** `Programmed=True Programmed`. */
export const programmed = (): Condition => PROGRAMMED;

/** `ResolvedRefs=True ResolvedRefs`. */
export const resolved = (): Condition => RESOLVED;

/** A parent's conditions when a route attached to it with nothing to say: one shared, frozen list (most routes). */
export const SERVED_PARENT: readonly Condition[] = Object.freeze([ACCEPTED, RESOLVED]);

/** `Accepted=True` with `resolvedRefs`, then any `more`: the shared list when that is all the common pair. */
export const acceptedParent = (condition: Condition, resolvedRefs: Condition, more: Condition[]): Condition[] =>
  condition === ACCEPTED && resolvedRefs === RESOLVED && more.length === 0
    ? (SERVED_PARENT as Condition[])
    : [condition, resolvedRefs, ...more];

/** A field the edge cannot use as written: `UnsupportedValue`, the most common problem by far. */
export const unsupported = (field: string, message: string): FieldProblem => ({ field, reason: REASON.UnsupportedValue, message });
