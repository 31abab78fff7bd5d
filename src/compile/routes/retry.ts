/** @module `rules[].retry` (GEP-1731): which answers are retried, how many times, and the wait between tries. */
import { parseDuration } from "../../gateway-api/duration";
import { isJsonObject } from "../../gateway-api/manifest";
import type { CompiledRetry } from "../../table/route-table";
import { type FieldProblem } from "../status/problems";
import { unsupported } from "../status/conditions";

/** More retries than this only multiply load on a backend that is already failing. */
const MAX_ATTEMPTS = 10;
/** The wait between tries when `backoff` is not set. */
export const DEFAULT_BACKOFF_MS = 25;

export function compileRetry(raw: unknown, at: string): CompiledRetry | undefined | FieldProblem {
  if (raw === undefined) return undefined;
  const fail = (field: string, message: string): FieldProblem => unsupported(`${at}${field}`, message);
  if (!isJsonObject(raw)) return fail("", "retry must be a mapping");
  const codes = raw.codes ?? [];
  if (!Array.isArray(codes) || !codes.every((c) => Number.isInteger(c) && c >= 400 && c <= 599)) {
    return fail(".codes", "codes must be HTTP status codes 400-599");
  }
  const attempts = raw.attempts ?? 1;
  if (!Number.isInteger(attempts) || (attempts as number) < 1 || (attempts as number) > MAX_ATTEMPTS) {
    return fail(".attempts", `attempts must be an integer 1-${MAX_ATTEMPTS}`);
  }
  let backoffMs = DEFAULT_BACKOFF_MS;
  if (raw.backoff !== undefined) {
    const ms = typeof raw.backoff === "string" ? parseDuration(raw.backoff) : null;
    if (ms === null) return fail(".backoff", `backoff ${JSON.stringify(raw.backoff)} is not a duration like 100ms`);
    backoffMs = ms;
  }
  return { codes: [...new Set(codes as number[])].sort((a, b) => a - b), attempts: attempts as number, backoffMs };
}
