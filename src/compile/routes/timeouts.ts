/** @module `rules[].timeouts` (spec §2 Timeouts): request and backendRequest durations. */
import { parseDuration } from "../../gateway-api/duration";
import { isJsonObject } from "../../gateway-api/manifest";
import { type FieldProblem } from "../status/problems";
import { unsupported } from "../status/conditions";

type Timeouts = { requestMs?: number; backendRequestMs?: number };

/** Compiles a rule's timeouts; "0s" is kept as 0 (disabled). */
export function compileTimeouts(raw: unknown, at: string): Timeouts | undefined | FieldProblem {
  if (raw === undefined) return undefined;
  if (!isJsonObject(raw)) return unsupported(at, "timeouts must be a mapping");
  const result: Timeouts = {};
  for (const key of ["request", "backendRequest"] as const) {
    const value = raw[key];
    if (value === undefined) continue;
    const ms = typeof value === "string" ? parseDuration(value) : null;
    if (ms === null) return unsupported(`${at}.${key}`, `${key} ${JSON.stringify(value)} is not a duration like 500ms, 10s or 1m30s`);
    if (ms > 0 && ms < 1) return unsupported(`${at}.${key}`, `${key} must be 0s or at least 1ms`);
    result[key === "request" ? "requestMs" : "backendRequestMs"] = ms;
  }
  // "0s" disables a timeout; backendRequest must not exceed an enabled request timeout.
  if (result.requestMs && result.backendRequestMs && result.backendRequestMs > result.requestMs) {
    return unsupported(`${at}.backendRequest`, "backendRequest must not be longer than request");
  }
  return result;
}
