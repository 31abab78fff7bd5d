/**
 * @module The compiler's one report sink. Every stage tells what it found here, once: a diagnostic (what the
 * CLI prints, per cluster, object and field) and, where the Gateway API has one, the status a controller would
 * write (the status book this extends). A verdict that is both (a listener or policy refused, a parent refused, a
 * route copy in conflict) is one call, and the diagnostic and the condition are two views of it. Pure: no I/O.
 */
import { fieldSegments } from "../../gateway-api/locate";
import type { Manifest } from "../../gateway-api/manifest";
import { fails, REASON, type Reason, resolved } from "./conditions";
import {
  type Condition,
  type Diagnostic,
  objectRef,
  type ObjectRef,
  type ParentRefView,
  type ResourceStatus,
  type Severity,
} from "./diagnostics";
import { StatusBook } from "./status-book";

/** What a diagnostic is about: an object read from a file (positions found on demand), or one already named. */
export type Told = Manifest | ObjectRef;

export class CompileReport extends StatusBook {
  private readonly told: Diagnostic[] = [];

  /** A diagnostic: what the CLI prints. */
  tell(
    severity: Severity,
    subject: Told,
    field: string | undefined,
    reason: Reason,
    message: string,
    extra: Pick<Diagnostic, "invalidObject"> = {},
  ): void {
    const object = "metadata" in subject ? objectRef(subject) : subject;
    const position = field && "locate" in subject && subject.locate ? subject.locate.at(fieldSegments(field)) : undefined;
    this.told.push({ severity, object, field, reason, message, ...(position ? { position } : {}), ...extra });
  }
  error(subject: Told, field: string | undefined, reason: Reason, message: string): void {
    this.tell("error", subject, field, reason, message);
  }
  warn(subject: Told, field: string | undefined, reason: Reason, message: string): void {
    this.tell("warning", subject, field, reason, message);
  }
  info(subject: Told, field: string | undefined, reason: Reason, message: string): void {
    this.tell("info", subject, field, reason, message);
  }
  /** An object that fails its schema, left out as the API server would have refused it. */
  invalidObject(m: Manifest, field: string, reason: Reason, message: string): void {
    this.tell("error", m, field, reason, message, { invalidObject: true });
  }

  /**
   * An object refused: its conditions (`Accepted=False` with this reason and message, unless told others) and
   * the diagnostic (an error, unless told a warning), one verdict.
   */
  refuse(
    m: Manifest,
    field: string,
    reason: Reason,
    message: string,
    options: { severity?: "error" | "warning"; conditions?: Condition[]; said?: string } = {},
  ): void {
    this.tell(options.severity ?? "error", m, field, reason, options.said ?? message);
    this.setConditions(m, options.conditions ?? [fails("Accepted", reason, message)]);
  }

  /** A listener that cannot be served: its conditions, and the error on its Gateway's (or ListenerSet's) field. */
  refuseListener(owner: Manifest, field: string, listener: { id: string; name: string }, reason: Reason, message: string): void {
    this.error(owner, field, reason, `listener ${listener.name}: ${message}`);
    this.rejectListener(listener.id, reason, message);
  }

  /** A listener whose port and hostname another listener already takes: not served. */
  refuseTakenListener(owner: Manifest, field: string, listener: { id: string; name: string }, message: string): void {
    this.conflictListener(listener.id, message);
    this.error(owner, field, REASON.HostnameConflict, `listener ${listener.name}: ${message}`);
  }

  /** Listeners of one Gateway on the same port and hostname: neither is served. */
  conflictListeners(gateway: Manifest, first: { id: string; name: string }, second: { id: string; name: string }, where: string): void {
    for (const l of [first, second]) this.conflictListener(l.id, "another listener has the same port and hostname");
    const message = `listeners ${first.name} and ${second.name} share ${where}`;
    this.error(gateway, "spec.listeners", REASON.HostnameConflict, message);
  }

  /** A route's parentRef that did not attach: its parent entry (`Accepted=False`, with `more`), and the error. */
  refuseParent(route: Manifest, parentRef: ParentRefView, refused: Condition, more: Condition[], field = "spec.parentRefs"): void {
    this.addParent(route, parentRef, [refused, ...more]);
    this.error(route, field, refused.reason, refused.message);
  }

  /** A route copy in conflict with the served one: a warning at the field that differs, and each parent entry. */
  conflictCopy(route: Manifest, parentRefs: ParentRefView[], field: string, message: string): void {
    this.warn(route, field, REASON.Conflicted, message);
    this.noteParents(route);
    for (const parentRef of parentRefs) this.addParent(route, parentRef, [fails("Accepted", REASON.Conflicted, message), resolved()]);
  }

  /** Everything told, in the order it was told. */
  diagnostics(): Diagnostic[] {
    return this.told;
  }
}

export type { ResourceStatus };
