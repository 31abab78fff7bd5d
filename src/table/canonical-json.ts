/** @module Deterministic JSON (sorted object keys) so equal tables hash and serialise identically. */

/**
 * An object's keys in sorted order, or null when they are in it already. Most objects of a table have a
 * handful of keys, and Array#sort allocates a work array on every call (a third of what canonicalising a
 * 10k-route table allocated), so small key lists are insertion-sorted in place. Both order by UTF-16 code units.
 */
function keysInOrder(value: object): string[] | null {
  const keys = Object.keys(value);
  let sorted = true;
  for (let i = 1; i < keys.length && sorted; i++) sorted = keys[i - 1]! <= keys[i]!;
  if (sorted) return null;
  if (keys.length > 12) return keys.sort();
  for (let i = 1; i < keys.length; i++) {
    const key = keys[i]!;
    let j = i - 1;
    for (; j >= 0 && keys[j]! > key; j--) keys[j + 1] = keys[j]!;
    keys[j + 1] = key;
  }
  return keys;
}

/**
 * A plain object's own fields in sorted order, as a shallow copy: JSON.stringify asks for each object as it
 * reaches it, so only one object's copy is alive at a time (a sorted deep copy of a 100,000-route table first,
 * then its text, doubled the sync's peak memory). An object whose fields are in order already is written as it
 * is (JSON.stringify follows an object's own order): the compiler builds the table's many small objects so.
 */
function sortedFields(_key: string, value: unknown): unknown {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return value;
  const keys = keysInOrder(value);
  if (keys === null) return value;
  const sorted: Record<string, unknown> = {};
  for (const key of keys) sorted[key] = (value as Record<string, unknown>)[key];
  return sorted;
}

/**
 * Whether JSON.stringify writes `value` canonically as it is: every object in it is plain, with its keys in sorted
 * order. A replacer is a call into JavaScript for every field JSON writes; the compiler builds its matches and
 * rules in order, and checking that first, then writing without one, took 0.30 s of a 100k-route table's parts
 * where the replacer took 0.38 s.
 */
function inKeyOrder(value: unknown): boolean {
  if (typeof value !== "object" || value === null) return true;
  // JSON writes what toJSON returns, which this does not look at.
  if (typeof (value as { toJSON?: unknown }).toJSON === "function") return false;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (!inKeyOrder(value[i])) return false;
    return true;
  }
  if (Object.getPrototypeOf(value) !== Object.prototype) return false;
  let previous: string | undefined;
  // for...in: own keys in JSON's order, without Object.keys' array (a plain object inherits no enumerable key).
  for (const key in value) {
    if (previous !== undefined && previous > key) return false;
    previous = key;
  }
  // A second pass, not the check above: one loop that also recursed took 116 ms of a 100k-route table's parts, two 105.
  for (const key in value) if (!inKeyOrder((value as Record<string, unknown>)[key])) return false;
  return true;
}

/** JSON with object keys in sorted order and `undefined` fields dropped. */
export function canonicalJson(value: unknown): string {
  return inKeyOrder(value) ? JSON.stringify(value) : JSON.stringify(value, sortedFields);
}

/** What JSON leaves out of an object and writes as null in an array. */
const unwritten = (value: unknown) => value === undefined || typeof value === "function" || typeof value === "symbol";

/** An array, or an object of plain data (no prototype but Object's, no toJSON): what JSON writes field by field. */
const opens = (value: object) =>
  typeof (value as { toJSON?: unknown }).toJSON !== "function" &&
  (Array.isArray(value) || Object.getPrototypeOf(value) === Object.prototype || Object.getPrototypeOf(value) === null);

/** Told of each value `writeCanonicalJson` writes as one piece: the array or object it is in, its index or key. */
export type WrittenWhole = (text: string, container: object, key: string | number) => void;

/**
 * canonicalJson(value), given to `write` a piece at a time and never whole: arrays and plain objects are opened
 * `depth` levels down (a table's rules and matches, one at a time), and what is below is one piece. The compiler
 * hashes and measures a table's text so: made whole, the text of a 100,000-route table took 36 MB, and as much
 * again for the pieces JSON.stringify joins, though a table stored in shards is never stored whole. `whole`, if
 * given, is told of each value below the top written as one piece (the compiler keeps each match's and rule's size).
 */
export function writeCanonicalJson(value: unknown, write: (piece: string) => void, depth = 2, whole?: WrittenWhole): void {
  writeValue(value, write, depth, whole, undefined, "");
}

function writeValue(
  value: unknown,
  write: (piece: string) => void,
  depth: number,
  whole: WrittenWhole | undefined,
  container: object | undefined,
  key: string | number,
): void {
  if (depth === 0 || typeof value !== "object" || value === null || !opens(value)) {
    const text = canonicalJson(value);
    write(text);
    if (whole && container) whole(text, container, key);
    return;
  }
  if (Array.isArray(value)) {
    write("[");
    // Indexed, not forEach: a hole is written as null, as JSON does.
    for (let i = 0; i < value.length; i++) {
      if (i > 0) write(",");
      if (unwritten(value[i])) write("null");
      else writeValue(value[i], write, depth - 1, whole, value, i);
    }
    write("]");
    return;
  }
  // The fields in the order canonicalJson writes them: sorted, except that JavaScript lists integer-like keys
  // ("9", "10": cluster names may be numbers) first, in numeric order, in the object it writes.
  const ordered = sortedFields("", value) as Record<string, unknown>;
  write("{");
  let first = true;
  for (const key of Object.keys(ordered)) {
    const field = ordered[key];
    if (unwritten(field)) continue;
    write(`${first ? "" : ","}${JSON.stringify(key)}:`);
    first = false;
    writeValue(field, write, depth - 1, whole, value, key);
  }
  write("}");
}

/**
 * canonicalJson(value) joined from writeCanonicalJson's pieces: a table's matches and rules are each written
 * without a replacer when in order, where the table as a whole is not (its fields are not built in key order).
 */
export function canonicalJsonByParts(value: unknown): string {
  const pieces: string[] = [];
  writeCanonicalJson(value, (piece) => void pieces.push(piece));
  return pieces.join("");
}

/** Hex SHA-256 of a string, via Web Crypto (present in Node 20 and workerd). */
export async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}
