import { describe, it } from "vitest";
import { fuzzSync } from "../../scripts/tools/fuzz-sync";

describe("sync under mutated configs", () => {
  it(
    "never crashes and never leaves a partial table (80 mutations of the example config, 4 real pushes)",
    { timeout: 120_000 },
    async ({ expect }) => {
      const report = await fuzzSync({ iterations: 80, seed: 20261122, pushEvery: 20 });
      expect(report.crashes).toEqual([]);
      expect(report.partialTables).toBe(0);
      expect(report.pushes).toBe(4);
      // The mutations do exercise all three outcomes.
      expect(Object.keys(report.exitCodes).sort()).toEqual(["0", "1", "2"]);
    },
  );
});
