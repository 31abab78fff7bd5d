/**
 * @module `npm run gen:features` writes the README's features table from src/compile/features.ts (the list
 * the GatewayClass status reports), between the `features` markers; test/unit/features.test.ts fails when
 * the README is out of date or a feature's test cannot be found.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { FEATURES } from "../src/compile/features";

export const README_FILE = join(import.meta.dirname, "..", "README.md");
const START = "<!-- features:start (npm run gen:features) -->";
const END = "<!-- features:end -->";

/** A Markdown table padded as the formatter pads it, so the generated text is already formatted. */
function markdownTable(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(3, h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(" | ")} |`;
  return [line(header), line(widths.map((w) => "-".repeat(w))), ...rows.map(line)].join("\n");
}

export function featuresSection(): string {
  const rows = FEATURES.map(({ name, support }) =>
    support.supported ? [`\`${name}\``, "yes", `\`${support.test}\``] : [`\`${name}\``, `no (${support.because})`, support.why],
  );
  return `${START}\n\n${markdownTable(["feature", "supported", "test, or why not"], rows)}\n\n${END}`;
}

/** The README with its features section replaced by the current one. */
export function withFeatures(readme: string): string {
  const start = readme.indexOf(START);
  const end = readme.indexOf(END);
  if (start === -1 || end === -1) throw new Error(`README.md lacks the ${START} … ${END} markers`);
  return `${readme.slice(0, start)}${featuresSection()}${readme.slice(end + END.length)}`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  writeFileSync(README_FILE, withFeatures(readFileSync(README_FILE, "utf8")));
  console.log(`wrote the features table of ${README_FILE} (${FEATURES.length} features)`);
}
