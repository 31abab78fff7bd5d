import { describe, it } from "vitest";
import { buildCandidateSet, firstHolding } from "../../src/routing/candidate-set";
import { matchHolds, type RequestFacts } from "../../src/routing/match-conditions";
import type { PreparedMatch } from "../../src/routing/prepared-table";
import type { CompiledMatch, PathMatchType } from "../../src/table/route-table";

const PATHS = ["/", "/a", "/a/b", "/a/b/c", "/ab", "/b", "/a/"];

/** A seeded generator, so a failure can be replayed. */
function random(seed: number) {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) & 0x7fffffff;
    return s / 0x7fffffff;
  };
}

const request = (path: string): RequestFacts => ({
  protocol: "HTTP",
  host: "h",
  path,
  method: "GET",
  headers: new Headers({ "x-yes": "1" }),
  query: new URLSearchParams(),
});

describe("candidate path buckets", () => {
  it("find the same first candidate as a full scan, for random candidate lists and paths", ({ expect }) => {
    const next = random(42);
    const pick = <T>(xs: T[]) => xs[Math.floor(next() * xs.length)]!;
    for (let round = 0; round < 1000; round++) {
      // Long enough lists to use the buckets (short ones are scanned in order).
      const matches: CompiledMatch[] = Array.from({ length: 1 + Math.floor(next() * 30) }, (_, i) => ({
        id: `m${i}`,
        rule: i,
        path: { type: pick<PathMatchType>(["Exact", "PathPrefix", "RegularExpression"]), value: pick(PATHS) },
        // Some matches also need a header the request lacks, so a fitting path alone does not decide.
        headers: next() < 0.3 ? [{ name: "x-no", type: "Exact" as const, value: "1" }] : [],
        queryParams: [],
      }));
      const prepared: PreparedMatch[] = matches.map((match) => ({
        match,
        pathRegex: match.path.type === "RegularExpression" ? new RegExp(`^(?:${match.path.value}.*)$`) : undefined,
        headerRegex: [],
        queryRegex: [],
      }));
      const order = matches.map((_, i) => i).sort(() => next() - 0.5);
      const req = request(pick(PATHS));
      const expected = order.findIndex((i) => matchHolds(prepared[i]!, req));
      expect(firstHolding(buildCandidateSet(order, matches), prepared, req), `round ${round}`).toBe(expected);
    }
  });
});
