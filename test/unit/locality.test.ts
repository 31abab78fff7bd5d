import { describe, it } from "vitest";
import { localityTier, nearestPool } from "../../src/routing/locality";
import type { CompiledEndpoint, LocalityPolicy } from "../../src/table/route-table";
import { readyEndpoint } from "../support/endpoints";

const policy = (minHealthyEndpoints: number): LocalityPolicy => ({
  minHealthyEndpoints,
  clusters: {
    iad: { continent: "NA", countries: ["US"], colos: ["IAD"] },
    sfo: { continent: "NA", countries: ["US"], colos: ["SFO"] },
    yyz: { continent: "NA", countries: ["CA"] },
    dub: { continent: "EU", countries: ["IE"], colos: ["DUB"] },
  },
});

const clustersOf = (endpoints: CompiledEndpoint[]) => [...new Set(endpoints.map((e) => e.cluster))].sort();

describe("locality tiers", () => {
  it("ranks colo before country before continent before elsewhere", ({ expect }) => {
    const { clusters } = policy(1);
    const at = { colo: "IAD", country: "US", continent: "NA" };
    expect(["iad", "sfo", "yyz", "dub", "unknown"].map((c) => localityTier(clusters[c], at))).toEqual([0, 1, 2, 3, 3]);
  });
});

describe("nearest pool", () => {
  const all = [readyEndpoint("iad", 1), readyEndpoint("iad", 2), readyEndpoint("sfo", 3), readyEndpoint("yyz", 4), readyEndpoint("dub", 5)];

  it("uses the nearest tier alone when it has enough ready endpoints", ({ expect }) => {
    expect(clustersOf(nearestPool(policy(2), all, { colo: "IAD", country: "US", continent: "NA" }).endpoints)).toEqual(["iad"]);
    expect(clustersOf(nearestPool(policy(1), all, { colo: "DUB", country: "IE", continent: "EU" }).endpoints)).toEqual(["dub"]);
  });

  it("widens to the next tier when the nearer ones have fewer than the threshold", ({ expect }) => {
    // One endpoint left in iad (the other failed): with a threshold of 2 it shares with the rest of the US.
    const degraded = all.filter((e) => e.host !== "10.0.0.2");
    expect(clustersOf(nearestPool(policy(2), degraded, { colo: "IAD", country: "US", continent: "NA" }).endpoints)).toEqual(["iad", "sfo"]);
    expect(clustersOf(nearestPool(policy(4), all, { colo: "IAD", country: "US", continent: "NA" }).endpoints)).toEqual([
      "iad",
      "sfo",
      "yyz",
    ]);
  });

  it("falls back to every endpoint when no tier reaches the threshold or the location is unknown", ({ expect }) => {
    expect(nearestPool(policy(1), all, {}).endpoints).toHaveLength(5);
    expect(nearestPool(policy(9), all, { colo: "IAD" }).endpoints).toHaveLength(5);
    expect(nearestPool(policy(1), all, { continent: "AS" }).endpoints).toHaveLength(5);
  });
});
