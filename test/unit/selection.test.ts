import { describe, it } from "vitest";
import { pickWeighted, weightedChoice } from "../../src/routing/weighted-choice";

/** Evenly spaced numbers in [0, 1): a deterministic stand-in for Math.random. */
const evenly = (n: number) => Array.from({ length: n }, (_, i) => (i + 0.5) / n);

describe("pickWeighted", () => {
  it("splits exactly by weight over evenly spread draws, and never picks weight 0", ({ expect }) => {
    const choice = weightedChoice([70, 30, 0]);
    const counts = [0, 0, 0];
    for (const r of evenly(1000)) counts[pickWeighted(choice, r)]!++;
    expect(counts).toEqual([700, 300, 0]);
  });

  it("treats weights as relative, not percentages", ({ expect }) => {
    const counts = [0, 0];
    for (const r of evenly(300)) counts[pickWeighted(weightedChoice([1, 2]), r)]!++;
    expect(counts).toEqual([100, 200]);
  });

  it("returns -1 when every weight is 0 or there is nothing to choose", ({ expect }) => {
    expect(pickWeighted(weightedChoice([0, 0]), 0.5)).toBe(-1);
    expect(pickWeighted(weightedChoice([]), 0.5)).toBe(-1);
  });

  it("skips zero-weight entries at the edges of the range", ({ expect }) => {
    const choice = weightedChoice([0, 5, 0]);
    expect(pickWeighted(choice, 0)).toBe(1);
    expect(pickWeighted(choice, 0.999999)).toBe(1);
  });
});
