/** The features table: every supported feature's test exists and says what it shows; docs/gateway-api.md shows the list as it is. */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "vitest";
import { FEATURES_FILE, withFeatures } from "../../scripts/tools/gen-features";
import { FEATURES } from "../../src/compile/report/features";

const ROOT = join(import.meta.dirname, "..", "..");

describe("the features table", () => {
  it("names, for each supported feature, a test file that exists and the case in it", ({ expect }) => {
    for (const { name, support } of FEATURES) {
      if (!support.supported) continue;
      const [file, label] = support.test.split(" › ");
      expect(existsSync(join(ROOT, file!)), `${name}: ${file}`).toBe(true);
      if (label) expect(readFileSync(join(ROOT, file!), "utf8"), `${name}: ${support.test}`).toContain(label);
    }
  });

  it("lists every feature once", ({ expect }) => {
    const names = FEATURES.map((f) => f.name);
    expect(new Set(names).size).toBe(names.length);
  });

  it("is what docs/gateway-api.md shows (npm run gen:features)", ({ expect }) => {
    const page = readFileSync(FEATURES_FILE, "utf8");
    expect(page).toBe(withFeatures(page));
  });
});
