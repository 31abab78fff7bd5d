/** @module `rules[].timeouts` (spec §2 Timeouts): request and backendRequest durations. */
import { durationMs } from "../../gateway-api/duration";
import type { HTTPRouteRule } from "../input/typed-objects";
import { type FieldProblem } from "../status/problems";
import { unsupported } from "../status/conditions";

type Timeouts = { requestMs?: number; backendRequestMs?: number };

/** Compiles a rule's timeouts; "0s" is kept as 0 (disabled). */
export function compileTimeouts(raw: HTTPRouteRule["timeouts"], at: string): Timeouts | undefined | FieldProblem {
  if (raw === undefined) return undefined;
  const result: Timeouts = {};
  if (raw.request !== undefined) result.requestMs = durationMs(raw.request);
  if (raw.backendRequest !== undefined) result.backendRequestMs = durationMs(raw.backendRequest);
  // "0s" disables a timeout; backendRequest must not exceed an enabled request timeout (CEL).
  if (result.requestMs && result.backendRequestMs && result.backendRequestMs > result.requestMs) {
    return unsupported(`${at}.backendRequest`, "backendRequest must not be longer than request");
  }
  return result;
}
