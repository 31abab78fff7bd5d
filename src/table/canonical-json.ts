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

/** JSON with object keys in sorted order and `undefined` fields dropped. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, sortedFields);
}

/** What JSON leaves out of an object and writes as null in an array. */
const unwritten = (value: unknown) => value === undefined || typeof value === "function" || typeof value === "symbol";

/** An array, or an object of plain data (no prototype but Object's, no toJSON): what JSON writes field by field. */
const opens = (value: object) =>
  Array.isArray(value) ||
  ((Object.getPrototypeOf(value) === Object.prototype || Object.getPrototypeOf(value) === null) &&
    typeof (value as { toJSON?: unknown }).toJSON !== "function");

/**
 * canonicalJson(value), given to `write` a piece at a time and never whole: arrays and plain objects are opened
 * `depth` levels down (a table's rules and matches, one at a time), and what is below is one piece. The compiler
 * hashes and measures a table's text so: made whole, the text of a 100,000-route table took 36 MB, and as much
 * again for the pieces JSON.stringify joins, though a table stored in shards is never stored whole.
 */
export function writeCanonicalJson(value: unknown, write: (piece: string) => void, depth = 2): void {
  if (depth === 0 || typeof value !== "object" || value === null || !opens(value)) {
    write(canonicalJson(value));
    return;
  }
  if (Array.isArray(value)) {
    write("[");
    // Indexed, not forEach: a hole is written as null, as JSON does.
    for (let i = 0; i < value.length; i++) {
      if (i > 0) write(",");
      if (unwritten(value[i])) write("null");
      else writeCanonicalJson(value[i], write, depth - 1);
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
    writeCanonicalJson(field, write, depth - 1);
  }
  write("}");
}

/** Hex SHA-256 of a string, via Web Crypto (present in Node 20 and workerd). */
export async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}
