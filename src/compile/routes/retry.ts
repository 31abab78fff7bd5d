/**
 * @module `rules[].retry` (GEP-1731, Standard since Gateway API v1.7): which answers are retried, how many
 * times, and the wait between tries. `attempts: 0` turns retries off for the rule (v1.7: an explicit zero
 * MUST disable them), so a failing request is sent once, connection errors included; left out, v1.7 leaves
 * the number to the implementation, and kedge retries once.
 */
import { durationMs } from "../../gateway-api/duration";
import type { CompiledRetry } from "../../table/route-table";
import type { HTTPRouteRetry } from "../input/typed-objects";
import { type FieldProblem } from "../status/problems";
import { unsupported } from "../status/conditions";

/** More retries than this only multiply load on a backend that is already failing. */
const MAX_ATTEMPTS = 10;
/** Retries when `attempts` is left out: one, as Envoy's default (GEP-1731 leaves it to the implementation). */
const DEFAULT_ATTEMPTS = 1;
/** The wait between tries when `backoff` is not set. */
export const DEFAULT_BACKOFF_MS = 25;

export function compileRetry(raw: HTTPRouteRetry | undefined, at: string): CompiledRetry | undefined | FieldProblem {
  if (raw === undefined) return undefined;
  // A null attempts passes the schema, and reads as left out. The v1.5 schema bounds it neither way; v1.7's
  // CRD refuses a negative one, and kedge more than MAX_ATTEMPTS.
  const attempts = raw.attempts ?? DEFAULT_ATTEMPTS;
  if (attempts < 0 || attempts > MAX_ATTEMPTS)
    return unsupported(`${at}.attempts`, `attempts must be an integer 0-${MAX_ATTEMPTS} (0 turns retries off)`);
  const backoffMs = raw.backoff === undefined ? DEFAULT_BACKOFF_MS : durationMs(raw.backoff);
  // Kept with attempts 0 too: a rule that says "no retries" must not get the failover a rule without a
  // retry stanza has (an idempotent request that cannot connect is tried once more elsewhere).
  return { codes: [...new Set(raw.codes ?? [])].sort((a, b) => a - b), attempts, backoffMs };
}
