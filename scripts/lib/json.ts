/**
 * @module JSON read at the CLI's boundaries (KV values, the API server's answers, files on disk), parsed and then
 * checked against its schema, as the Worker reads KV: what the code reads next is the type the schema states,
 * with no cast, and a value of another shape is said as such instead of failing later far from here.
 */
import { conforms, fieldPathText, firstProblem, type Schema } from "../../src/table/structural-schema";

export type JsonRead<T> = { ok: true; value: T } | { ok: false; reason: string };

/** `text` parsed and checked against `schema`: the value as the schema's type, or why it is not one. */
export function parseJson<T>(text: string, schema: Schema<T>): JsonRead<T> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, reason: `not JSON (${String(error)})` };
  }
  if (conforms(value, schema)) return { ok: true, value };
  const problem = firstProblem(value, schema);
  return { ok: false, reason: problem ? `${fieldPathText(problem.path) || "the value"} ${problem.message}` : "refused" };
}

/** The value, or null when it cannot be read: for records whose absence is an answer (a lease, a lock). */
export function jsonOrNull<T>(text: string, schema: Schema<T>): T | null {
  const read = parseJson(text, schema);
  return read.ok ? read.value : null;
}

/** The value, or an Error naming what was read and why it is not usable: for answers kedge cannot go on without. */
export function jsonOf<T>(text: string, schema: Schema<T>, what: string): T {
  const read = parseJson(text, schema);
  if (!read.ok) throw new Error(`${what}: ${read.reason}`);
  return read.value;
}
