/**
 * The table's version as the CLI hashes it (Node, a megabyte at a time) and as the compiler does by default
 * (Web Crypto, the whole text): the same SHA-256 for any text, including characters outside the BMP whose two
 * halves straddle the boundary between two pieces.
 */
import { describe, it } from "vitest";
import { sha256HexInPieces } from "../../scripts/config/compile-loaded";
import { sha256Hex } from "../../src/table/canonical-json";

const MIB = 2 ** 20;

describe("the version hash in pieces", () => {
  it("equals Web Crypto's SHA-256 of the whole text, whatever falls on a piece's boundary", async ({ expect }) => {
    const texts = [
      "",
      '{"name":"shop"}',
      // An emoji (a surrogate pair) whose high half is the last code unit of the first piece.
      `${"a".repeat(MIB - 1)}😀${"b".repeat(10)}`,
      // ... and whose low half would start the second.
      `${"a".repeat(MIB)}😀`,
      // Several pieces of text that is not ASCII throughout: ü (2 bytes), 中 (3), 😀 (4).
      "üb中😀 ".repeat(700_000),
    ];
    for (const text of texts) expect(sha256HexInPieces(text)).toBe(await sha256Hex(text));
  });
});
