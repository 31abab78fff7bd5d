/** @module A Markdown table padded as the formatter pads it, so generated sections of the docs are already formatted. */

export function markdownTable(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(3, h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(" | ")} |`;
  return [line(header), line(widths.map((w) => "-".repeat(w))), ...rows.map(line)].join("\n");
}

/** `text` with what lies between `start` and `end` replaced by `section` (markers kept). */
export function replaceBetween(text: string, start: string, end: string, section: string): string {
  const from = text.indexOf(start);
  const to = text.indexOf(end);
  if (from === -1 || to === -1) throw new Error(`the text lacks the ${start} … ${end} markers`);
  return `${text.slice(0, from + start.length)}\n\n${section}\n\n${text.slice(to)}`;
}
