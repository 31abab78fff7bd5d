/** @module Gateway API durations (GEP-2257): `1h`, `500ms`, `1m30s`; `0s` means "disabled". */

const DURATION = /^([0-9]{1,5}(h|m|s|ms)){1,4}$/;
const PART = /([0-9]{1,5})(h|ms|m|s)/g;
const UNIT_MS: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1000, ms: 1 };

/** Milliseconds, or null when the text is not a GEP-2257 duration. */
export function parseDuration(text: string): number | null {
  if (!DURATION.test(text)) return null;
  let total = 0;
  for (const [, amount, unit] of text.matchAll(PART)) total += Number(amount) * (UNIT_MS[unit ?? "s"] ?? 0);
  return total;
}

/** Milliseconds of a duration the schema stage passed: the schema's pattern is DURATION, so it parses. */
export const durationMs = (text: string): number => parseDuration(text)!;
