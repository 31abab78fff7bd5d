import type { FieldProblem } from "./route-matches";
type Timeouts = {
  requestMs?: number;
  backendRequestMs?: number;
};
/** Compiles a rule's timeouts; "0s" is kept as 0 (disabled). */
export declare function compileTimeouts(raw: unknown, at: string): Timeouts | undefined | FieldProblem;
export {};
