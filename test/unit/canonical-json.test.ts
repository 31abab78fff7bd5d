/**
 * Canonical JSON: object keys in sorted order at every depth, whatever order the object was built in, so equal
 * tables hash and are stored alike. Written without a replacer when the value is in order already, and in pieces
 * for the version hash; every way gives the same text as sorting first.
 */
import { describe, it } from "vitest";
import { canonicalJson, canonicalJsonByParts, writeCanonicalJson } from "../../src/table/canonical-json";

const plain = (v: object) => [Object.prototype, null].includes(Object.getPrototypeOf(v));

/** The text as the definition says: every plain object's keys sorted before JSON writes it. */
const sortedFirst = (value: unknown) =>
  JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === "object" && !Array.isArray(v) && plain(v)
      ? Object.fromEntries(
          Object.keys(v)
            .sort()
            .map((k) => [k, (v as Record<string, unknown>)[k]]),
        )
      : v,
  );

const inPieces = (value: unknown, depth: number) => {
  const pieces: string[] = [];
  writeCanonicalJson(value, (piece) => void pieces.push(piece), depth);
  return pieces.join("");
};

const nullPrototype = Object.assign(Object.create(null) as object, { b: 1, a: 2 });
// A hole, which JSON writes as null as it does undefined.
const withHole = [1, undefined, 3];
delete withHole[1];
const withToJson = { b: 1, toJSON: () => ({ z: 1, y: { d: 1, c: 2 } }) };
const arrayWithToJson = Object.assign([1], { toJSON: () => ({ b: 1, a: 2 }) });

/** Values in order, out of order at some depth, and with what JSON writes its own way. */
const CASES: Record<string, unknown> = {
  "in order at every depth": { a: 1, b: [{ c: 1, d: { e: "x", f: null } }], g: "ü中😀" },
  "out of order at the top": { b: 1, a: { c: 1, d: 2 } },
  "out of order deep in an array": { a: [{ c: 1, d: 2 }, { e: { g: 1, f: 2 } }], b: 2 },
  "integer-like keys (JavaScript lists them first)": { clusters: { "10": 1, "9": 2, east: 3, "1": 4 } },
  "undefined fields and holes": { a: undefined, b: withHole, c: () => 1 },
  "a date and boxed values": { b: new Date(0), a: [new String("s"), new Number(1), new Boolean(false)] },
  "an object with toJSON": { b: withToJson, a: 1 },
  "an array with toJSON": { a: arrayWithToJson },
  "an object without a prototype": { a: nullPrototype },
  "a key that sorts before another only by code unit": { é: 1, z: 2, Z: 3, "😀": 4, ﬀ: 5 },
  "all of these, nested": {
    z: [1, undefined, () => 1, { d: 2, c: undefined, b: [] }, [[{}]], withHole],
    a: "x",
    m: { y: null, x: "ü中😀 \ud83d lone", skipped: undefined },
    e: {},
    clusters: { b: 1, "10": { "9": 1, "10": 2, a: 3 }, "9": 4 },
    when: new Date(0),
    custom: { toJSON: () => "custom", hidden: 1 },
    boxed: [new String("s"), new Number(1)],
  },
};

describe("canonical JSON", () => {
  for (const [name, value] of Object.entries(CASES))
    it(`writes ${name} as sorting first does, whole and in pieces`, ({ expect }) => {
      const expected = sortedFirst(value);
      expect(canonicalJson(value)).toBe(expected);
      expect(canonicalJsonByParts(value)).toBe(expected);
      for (const depth of [0, 1, 2, 3, 6]) expect(inPieces(value, depth), `depth ${depth}`).toBe(expected);
    });

  it("tells which values it wrote whole, with the array or object each is in", ({ expect }) => {
    const table = {
      matches: [
        { id: "m0", rule: 0 },
        { rule: 1, id: "m1" },
      ],
      name: "t",
    };
    const told: [string, unknown, string | number][] = [];
    writeCanonicalJson(
      table,
      () => {},
      2,
      (text, container, key) => void told.push([text, container, key]),
    );
    expect(told).toEqual([
      ['{"id":"m0","rule":0}', table.matches, 0],
      ['{"id":"m1","rule":1}', table.matches, 1],
      ['"t"', table, "name"],
    ]);
  });
});
