/** @module `rules[].retry` (GEP-1731): which answers are retried, how many times, and the wait between tries. */
import { durationMs } from "../../gateway-api/duration";
import type { CompiledRetry } from "../../table/route-table";
import type { HTTPRouteRetry } from "../input/typed-objects";
import { type FieldProblem } from "../status/problems";
import { unsupported } from "../status/conditions";

/** More retries than this only multiply load on a backend that is already failing. */
const MAX_ATTEMPTS = 10;
/** The wait between tries when `backoff` is not set. */
export const DEFAULT_BACKOFF_MS = 25;

export function compileRetry(raw: HTTPRouteRetry | undefined, at: string): CompiledRetry | undefined | FieldProblem {
  if (raw === undefined) return undefined;
  // A null attempts passes the schema, and reads as left out; the schema bounds it neither way.
  const attempts = raw.attempts ?? 1;
  if (attempts < 1 || attempts > MAX_ATTEMPTS) return unsupported(`${at}.attempts`, `attempts must be an integer 1-${MAX_ATTEMPTS}`);
  const backoffMs = raw.backoff === undefined ? DEFAULT_BACKOFF_MS : durationMs(raw.backoff);
  return { codes: [...new Set(raw.codes ?? [])].sort((a, b) => a - b), attempts, backoffMs };
}
