/**
 * @module XBackendTrafficPolicy `retryConstraint` (GEP-3388): the retry budget of a backend. Over
 * `budget.interval`, retries to the backend may number `budget.percent` of its requests plus
 * `minRetryRate.count` per `minRetryRate.interval`. Fields left out take GEP-3388's defaults, which a
 * backend without a policy gets too.
 */
import { parseDuration } from "../../gateway-api/duration";
import { isJsonObject } from "../../gateway-api/manifest";
import { type CompiledRetryBudget, DEFAULT_RETRY_BUDGET as FIELD_DEFAULTS } from "../../table/route-table";
import { type FieldProblem, isProblem } from "../status/problems";
import { unsupported } from "../status/conditions";

const SECOND = 1000;
const HOUR = 3_600_000;

function interval(raw: unknown, fallback: number, field: string): number | FieldProblem {
  if (raw === undefined) return fallback;
  const ms = typeof raw === "string" ? parseDuration(raw) : null;
  if (ms === null || ms < SECOND || ms > HOUR) return unsupported(field, `${JSON.stringify(raw)} is not a duration from 1s to 1h`);
  return ms;
}

export function parseRetryConstraint(raw: unknown, at: string): CompiledRetryBudget | FieldProblem {
  const fail = (field: string, message: string): FieldProblem => unsupported(`${at}${field}`, message);
  if (!isJsonObject(raw)) return fail("", "retryConstraint must be a mapping");
  const budget = raw.budget ?? {};
  const min = raw.minRetryRate ?? {};
  if (!isJsonObject(budget)) return fail(".budget", "budget must be a mapping");
  if (!isJsonObject(min)) return fail(".minRetryRate", "minRetryRate must be a mapping");
  const percent = budget.percent ?? FIELD_DEFAULTS.percent;
  if (!Number.isInteger(percent) || (percent as number) < 0 || (percent as number) > 100)
    return fail(".budget.percent", "percent must be an integer 0-100");
  const count = min.count ?? FIELD_DEFAULTS.minRetries;
  if (!Number.isInteger(count) || (count as number) < 0) return fail(".minRetryRate.count", "count must be an integer 0 or more");
  const intervalMs = interval(budget.interval, FIELD_DEFAULTS.intervalMs, `${at}.budget.interval`);
  if (isProblem(intervalMs)) return intervalMs;
  const minIntervalMs = interval(min.interval, FIELD_DEFAULTS.minIntervalMs, `${at}.minRetryRate.interval`);
  if (isProblem(minIntervalMs)) return minIntervalMs;
  return { percent: percent as number, intervalMs, minRetries: count as number, minIntervalMs };
}
