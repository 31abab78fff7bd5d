/** @module How many bytes a text takes as UTF-8: what a Workers KV value's size limit counts. */

/** The first code unit that is not ASCII. */
const NON_ASCII = /[\u0080-\uffff]/;

/**
 * The UTF-8 bytes of a text, counted without encoding it: encoding only to measure made a copy of the whole table
 * outside the JS heap (36 MB at 100,000 routes). A lone surrogate counts as the replacement character it becomes.
 */
export function utf8Length(text: string): number {
  // A table's text is mostly ASCII: one native scan finds where it stops being so (if it does), one byte each before.
  const first = text.search(NON_ASCII);
  if (first < 0) return text.length;
  let bytes = text.length;
  for (let i = first; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) continue;
    if (c < 0x800) bytes += 1;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      bytes += 2; // a pair: two code units, four bytes
      i++;
    } else bytes += 2;
  }
  return bytes;
}
