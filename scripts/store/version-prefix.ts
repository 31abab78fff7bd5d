/**
 * @module A version named the way git names a commit: the whole id, or a prefix of at least MIN_PREFIX
 * characters that only one kept version starts with. A prefix that is too short, matches nothing or matches
 * several is a mistake of the user's (exit 2) that names the candidates, so the next try is right.
 */
import { UserError } from "../lib/user-error";

/** The shortest prefix taken for a version, as git's default abbreviation is 7 and its minimum 4. */
export const MIN_PREFIX = 6;

/** The kept version `given` names (whole, or by a unique prefix); `kept` newest first, as the history lists them. */
export function resolveVersion(given: string, kept: readonly string[], table: string): string {
  const wanted = given.trim().toLowerCase();
  if (kept.includes(wanted)) return wanted;
  const listed = kept.length > 0 ? `kept versions of table ${table}: ${kept.join(", ")}` : `table ${table} has no kept versions here`;
  if (!/^[0-9a-f]+$/.test(wanted))
    throw new UserError(`${JSON.stringify(given)} is not a version (a version is hexadecimal, as \`kedge history\` lists it)`, listed);
  if (wanted.length < MIN_PREFIX)
    throw new UserError(`version prefix ${given} is too short: give at least ${MIN_PREFIX} characters`, listed);
  const matches = kept.filter((v) => v.startsWith(wanted));
  if (matches.length === 1) return matches[0]!;
  if (matches.length === 0) throw new UserError(`no kept version of table ${table} starts with ${given}`, listed);
  throw new UserError(
    `version prefix ${given} is ambiguous: ${matches.length} kept versions start with it (${matches.join(", ")})`,
    "give more characters of the one you mean",
  );
}
