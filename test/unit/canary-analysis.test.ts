/**
 * The canary's analysis and the pointer readers act on: a canary is reverted only when it fails more than the
 * current version by the allowed margin and significantly, promoted only after its window with enough requests,
 * and a record's end applies only to the canary that the pointer names.
 */
import { describe, it } from "vitest";
import {
  analyseCanary,
  type CanaryAnalysis,
  type CanaryFigures,
  type CanaryRecord,
  effectivePointer,
  increaseZ,
} from "../../src/table/canary";
import type { TablePointer } from "../../src/table/route-table";

const ANALYSIS: CanaryAnalysis = { windowMs: 300_000, minRequests: 100, maxErrorRateIncrease: 0.02 };

const figures = (canary: [number, number], current: [number, number]): CanaryFigures => ({
  canary: { version: "c".repeat(20), requests: canary[0], errors: canary[1] },
  current: { version: "s".repeat(20), requests: current[0], errors: current[1] },
  fromMinute: "2026-11-28T10:00:00.000Z",
  toMinute: "2026-11-28T10:05:00.000Z",
});

describe("the canary's analysis", () => {
  it("waits for the minimum of canary requests, whatever they show", ({ expect }) => {
    expect(analyseCanary(ANALYSIS, figures([99, 99], [900, 0]), 600_000)).toMatchObject({
      decision: "wait",
      reason: expect.stringContaining("waiting for 1 more canary requests"),
    });
  });

  it("reverts a canary that fails, at once (before its window)", ({ expect }) => {
    const verdict = analyseCanary(ANALYSIS, figures([120, 120], [1080, 1]), 10_000);
    expect(verdict.decision).toBe("revert");
    expect(verdict.reason).toMatch(
      /canary c{12} 120 of 120 \(100\.0%\) vs current s{12} 1 of 1080 \(0\.1%\): error rate 99\.9 points higher \(allowed 2\.0 points, z \d+\.\d\)/,
    );
  });

  it("does not revert for an increase within the margin, nor for one that noise explains", ({ expect }) => {
    // 2 points exactly: allowed.
    expect(analyseCanary(ANALYSIS, figures([100, 3], [1000, 10]), 10_000).decision).toBe("wait");
    // 3 points over 100 requests, against a 1% baseline: z about 2.9, short of 3.
    expect(increaseZ(figures([100, 4], [1000, 10]))).toBeLessThan(3);
    expect(analyseCanary(ANALYSIS, figures([100, 4], [1000, 10]), 10_000).decision).toBe("wait");
    // The same rates over ten times the requests are significant.
    expect(analyseCanary(ANALYSIS, figures([1000, 40], [10000, 100]), 10_000).decision).toBe("revert");
  });

  it("promotes only after the window, when the canary is not worse by more than the margin", ({ expect }) => {
    expect(analyseCanary(ANALYSIS, figures([150, 1], [1350, 2]), 200_000)).toMatchObject({
      decision: "wait",
      reason: expect.stringMatching(/100 s of the analysis window left/),
    });
    expect(analyseCanary(ANALYSIS, figures([150, 1], [1350, 2]), 300_000).decision).toBe("promote");
    // A canary better than the current version is promoted too.
    expect(analyseCanary(ANALYSIS, figures([150, 0], [1350, 40]), 300_000).decision).toBe("promote");
  });
});

describe("the pointer in force", () => {
  const canary = { id: "c-1", version: "c".repeat(20), percent: 10, startedAt: "2026-11-28T10:00:00.000Z", by: "me", analysis: ANALYSIS };
  const pointer: TablePointer = { version: "s".repeat(20), schemaVersion: 1, updatedAt: "2026-11-28T10:00:00.000Z", canary };
  const ended = (outcome: "promoted" | "reverted", id = "c-1"): CanaryRecord => ({
    canary: { ...canary, id },
    current: pointer.version,
    ended: { outcome, at: "2026-11-28T10:06:00.000Z", by: "the edge (canary analysis)", reason: "figures" },
  });

  it("is the pointer itself while the canary runs, or when the record is another canary's", ({ expect }) => {
    expect(effectivePointer(pointer, null)).toBe(pointer);
    expect(effectivePointer(pointer, { canary, current: pointer.version })).toBe(pointer);
    expect(effectivePointer(pointer, ended("promoted", "c-0"))).toBe(pointer);
  });

  it("names the canary's version once promoted, and the current one marked as rolled back from it once reverted", ({ expect }) => {
    expect(effectivePointer(pointer, ended("promoted"))).toEqual({
      version: canary.version,
      schemaVersion: 1,
      updatedAt: "2026-11-28T10:06:00.000Z",
    });
    expect(effectivePointer(pointer, ended("reverted"))).toEqual({
      version: pointer.version,
      schemaVersion: 1,
      updatedAt: "2026-11-28T10:06:00.000Z",
      rolledBack: { from: canary.version, at: "2026-11-28T10:06:00.000Z", by: "the edge (canary analysis)" },
    });
  });
});
