/**
 * @module `npm run gen:features` writes the features table of docs/gateway-api.md from
 * src/compile/report/features.ts (the list the GatewayClass status reports), between the `features`
 * markers; test/unit/features.test.ts fails when that page is out of date or a feature's test cannot be found.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { FEATURES } from "../../src/compile/report/features";
import { markdownTable, replaceBetween } from "./markdown-table";

/** The page that shows the features table (the README links to it). */
export const FEATURES_FILE = join(import.meta.dirname, "..", "..", "docs", "gateway-api.md");
const START = "<!-- features:start (npm run gen:features) -->";
const END = "<!-- features:end -->";

export function featuresSection(): string {
  const rows = FEATURES.map(({ name, support }) =>
    support.supported ? [`\`${name}\``, "yes", `\`${support.test}\``] : [`\`${name}\``, `no (${support.because})`, support.why],
  );
  return markdownTable(["feature", "supported", "test, or why not"], rows);
}

/** The page with its features section replaced by the current one. */
export const withFeatures = (page: string): string => replaceBetween(page, START, END, featuresSection());

if (import.meta.url === `file://${process.argv[1]}`) {
  writeFileSync(FEATURES_FILE, withFeatures(readFileSync(FEATURES_FILE, "utf8")));
  console.log(`wrote the features table of ${FEATURES_FILE} (${FEATURES.length} features)`);
}
