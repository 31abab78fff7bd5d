/**
 * @module XBackendTrafficPolicy `retryConstraint` (GEP-3388): the retry budget of a backend. Over
 * `budget.interval`, retries to the backend may number `budget.percent` of its requests plus
 * `minRetryRate.count` per `minRetryRate.interval`. Fields left out take GEP-3388's defaults, which a
 * backend without a policy gets too.
 */
import { durationMs } from "../../gateway-api/duration";
import { type CompiledRetryBudget, DEFAULT_RETRY_BUDGET as FIELD_DEFAULTS } from "../../table/route-table";
import type { RetryConstraint } from "../input/typed-objects";
import { type FieldProblem, isProblem } from "../status/problems";
import { unsupported } from "../status/conditions";

const SECOND = 1000;
const HOUR = 3_600_000;

/** An interval: its pattern is the schema's, which lets null by; its bounds are CEL rules. */
function interval(raw: string | null | undefined, fallback: number, field: string): number | FieldProblem {
  if (raw === undefined) return fallback;
  const ms = raw === null ? null : durationMs(raw);
  if (ms === null || ms < SECOND || ms > HOUR) return unsupported(field, `${JSON.stringify(raw)} is not a duration from 1s to 1h`);
  return ms;
}

export function parseRetryConstraint(raw: RetryConstraint, at: string): CompiledRetryBudget | FieldProblem {
  const budget = raw.budget ?? {};
  const min = raw.minRetryRate ?? {};
  // The schema checks their ranges; a null reads as left out.
  const percent = budget.percent ?? FIELD_DEFAULTS.percent;
  const count = min.count ?? FIELD_DEFAULTS.minRetries;
  const intervalMs = interval(budget.interval, FIELD_DEFAULTS.intervalMs, `${at}.budget.interval`);
  if (isProblem(intervalMs)) return intervalMs;
  const minIntervalMs = interval(min.interval, FIELD_DEFAULTS.minIntervalMs, `${at}.minRetryRate.interval`);
  if (isProblem(minIntervalMs)) return minIntervalMs;
  return { percent, intervalMs, minRetries: count, minIntervalMs };
}
