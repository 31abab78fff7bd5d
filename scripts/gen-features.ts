/**
 * @module `npm run gen:features` writes the README's features table from src/compile/report/features.ts (the list
 * the GatewayClass status reports), between the `features` markers; test/unit/features.test.ts fails when
 * the README is out of date or a feature's test cannot be found.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { FEATURES } from "../src/compile/report/features";
import { markdownTable, replaceBetween } from "./lib/markdown-table";

export const README_FILE = join(import.meta.dirname, "..", "README.md");
const START = "<!-- features:start (npm run gen:features) -->";
const END = "<!-- features:end -->";

export function featuresSection(): string {
  const rows = FEATURES.map(({ name, support }) =>
    support.supported ? [`\`${name}\``, "yes", `\`${support.test}\``] : [`\`${name}\``, `no (${support.because})`, support.why],
  );
  return markdownTable(["feature", "supported", "test, or why not"], rows);
}

/** The README with its features section replaced by the current one. */
export const withFeatures = (readme: string): string => replaceBetween(readme, START, END, featuresSection());

if (import.meta.url === `file://${process.argv[1]}`) {
  writeFileSync(README_FILE, withFeatures(readFileSync(README_FILE, "utf8")));
  console.log(`wrote the features table of ${README_FILE} (${FEATURES.length} features)`);
}
