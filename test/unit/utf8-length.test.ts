import { describe, expect, it } from "vitest";
import { utf8Length } from "../../src/table/utf8-length";

describe("utf8Length", () => {
  it("counts the bytes TextEncoder writes, without writing them", () => {
    const texts = [
      "",
      "plain ascii /api/v1",
      // Counted from the first code unit that is not ASCII: one late in a long text.
      `${"a".repeat(1000)}é${"b".repeat(10)}😀`,
      "é ß ÿ Ā",
      "€ 中文 ﷽",
      "😀 pairs 𝄞",
      // Lone surrogates become U+FFFD (three bytes): a high one at the end, before a non-surrogate, a low one alone.
      "end \ud83d",
      "\ud83d then text",
      "\ude00 low alone",
      "\ud83d\ud83d\ude00 high, then a pair",
    ];
    expect(texts.map(utf8Length)).toEqual(texts.map((text) => new TextEncoder().encode(text).length));
  });
});
