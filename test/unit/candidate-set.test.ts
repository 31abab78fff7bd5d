import { describe, it } from "vitest";
import { buildCandidateSet, firstHolding, literalDirectory, pathKey } from "../../src/routing/candidate-set";
import { matchHolds, type RequestFacts } from "../../src/routing/match-conditions";
import { HostCandidates, type PreparedMatch, prepareMatch } from "../../src/routing/prepared-table";
import type { CompiledMatch, CompiledValueMatch, PathMatchType } from "../../src/table/route-table";

/** Longer than the key-length table starts (32), so it has to grow, twice for LONG twice. */
const LONG = "x".repeat(40);
const PATHS = [
  "/",
  "/a",
  "/a/b",
  "/a/b/c",
  "/ab",
  "/b",
  "/a/",
  "/a/1",
  "/a/b/22",
  "/a1/b",
  `/a/${LONG}`,
  `/a/${LONG}/b`,
  `/${LONG}/${LONG}`,
];
const REGEXES = [
  "/a/[0-9]+",
  "/a/b/.*",
  "/a/?",
  "/a|/b",
  "/a/b|/ab",
  "(/a)/b",
  "/a/(b|c)",
  "/a1?/b",
  "/a/b{0,1}",
  "/.*",
  "\\/a/b",
  "[/]a",
  `/a/${LONG}/.+`,
];

/** A seeded generator, so a failure can be replayed. */
function random(seed: number) {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) & 0x7fffffff;
    return s / 0x7fffffff;
  };
}

describe("literal directory of a path regex", () => {
  it.for([
    ["/api/v1/[0-9]+", "/api/v1"],
    ["/api/v1/x?", "/api/v1"],
    ["/api/v1/?", "/api"],
    ["/api/v1", "/api"],
    ["/api/(v1|v2)/x", "/api"],
    ["/api/v1{0,1}/x", "/api"],
    ["/a", null],
    ["/a|/b/c", null],
    ["^/api/x", null],
    ["\\/api/x", null],
    [".*/api/x", null],
  ] as const)("%s → %s", ([pattern, directory], { expect }) => {
    expect(literalDirectory(pattern)).toBe(directory);
  });
});

describe("candidate buckets", () => {
  it("find the same first candidate as a full scan, for random candidate lists, paths and headers", ({ expect }) => {
    const next = random(42);
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(next() * xs.length)]!;
    for (let round = 0; round < 3000; round++) {
      // Long enough lists to use the buckets and header splits (short ones are scanned in order).
      const matches: CompiledMatch[] = Array.from({ length: 1 + Math.floor(next() * 40) }, (_, i) => {
        const type = pick<PathMatchType>(["Exact", "PathPrefix", "RegularExpression"]);
        const headers: CompiledValueMatch[] = [];
        // Many need one header's value (so buckets split by it); some need a header the request lacks.
        if (next() < 0.6) headers.push({ name: "x-route", type: "Exact", value: `r${Math.floor(next() * 4)}` });
        if (next() < 0.2) headers.push({ name: "x-no", type: "Exact", value: "1" });
        if (next() < 0.1) headers.push({ name: "x-route", type: "RegularExpression", value: "r[0-1]" });
        return {
          id: `m${i}`,
          rule: i,
          path: { type, value: type === "RegularExpression" ? pick(REGEXES) : pick(PATHS) },
          headers,
          queryParams: [],
        };
      });
      const prepared = matches.map(prepareMatch);
      const order = matches.map((_, i) => i).sort(() => next() - 0.5);
      const req: RequestFacts = {
        protocol: "HTTP",
        host: "h",
        path: pick(PATHS),
        method: "GET",
        headers: new Headers(next() < 0.8 ? { "x-route": `r${Math.floor(next() * 4)}` } : {}),
        query: new URLSearchParams(),
      };
      const expected = order.findIndex((i) => matchHolds(prepared[i]!, req));
      expect(firstHolding(buildCandidateSet(order.map((i) => prepared[i]!)), req), `round ${round}`).toBe(expected);
    }
  });

  it("find the same first candidate as a full scan when every prefix and directory shares a start, for paths with and without it", ({
    expect,
  }) => {
    const prefixes = ["/api/v1", "/api/v2", "/api/v10", "/api/v1/items", "/api/v", "/api/vv/x", "/api/v2/a/b"];
    const regexes = ["/api/v3/[0-9]+", "/api/v1/x.*"];
    const matches: CompiledMatch[] = [...prefixes, ...regexes].map((value, i) => ({
      id: `m${i}`,
      rule: i,
      path: { type: i < prefixes.length ? "PathPrefix" : "RegularExpression", value },
      headers: [],
      queryParams: [],
    }));
    const prepared = matches.map(prepareMatch);
    // Precedence as the compiler sorts it does not matter here: the answer must equal a scan in this order.
    const set = buildCandidateSet(prepared);
    expect(set.leadLength).toBe("/api/v".length);
    const paths = [
      ...["/api/v1", "/api/v1/", "/api/v1/x", "/api/v10/x", "/api/v1/items/9", "/api/v", "/api/v/", "/api/vv/x/y", "/api/v2/a/b"],
      ...["/api/v3/42", "/api/v3/x", "/api/v1/xyz", "/api", "/", "/api/w1/x", "/apx/v1/x", "/zzz/v1", "/a", "/api/v2/a"],
    ];
    for (const path of paths) {
      const req: RequestFacts = { protocol: "HTTP", host: "h", path, method: "GET", headers: new Headers(), query: new URLSearchParams() };
      expect(firstHolding(set, req), path).toBe(prepared.findIndex((m) => matchHolds(m, req)));
    }
  });

  it("a bucket split by a header's value reads that header once, and its other candidates see the same value", ({ expect }) => {
    // Ten candidates on every path: eight need x-route to be r0..r7, one a regular expression on it, one nothing.
    const header = (type: "Exact" | "RegularExpression", value: string): CompiledValueMatch => ({ name: "x-route", type, value });
    const needs = [...Array.from({ length: 8 }, (_, i) => [header("Exact", `r${i}`)]), [header("RegularExpression", "r9|r1[0-9]")], []];
    const prepared = needs.map((headers, i) =>
      prepareMatch({ id: `m${i}`, rule: i, path: { type: "PathPrefix", value: "/" }, headers, queryParams: [] }),
    );
    const set = buildCandidateSet(prepared);
    expect(Array.isArray(set.rootPrefix)).toBe(false);
    let reads = 0;
    for (const value of ["r3", "r12", "r9", "r20", "", null]) {
      const headers = new Headers(value === null ? {} : { "x-route": value });
      const counted = { get: (name: string) => (reads++, headers.get(name)) };
      const req: RequestFacts = { protocol: "HTTP", host: "h", path: "/x", method: "GET", headers: counted, query: new URLSearchParams() };
      reads = 0;
      const expected = prepared.findIndex((m) => matchHolds(m, { ...req, headers }));
      expect(firstHolding(set, req), `x-route: ${value}`).toBe(expected);
      expect(reads, `x-route: ${value}`).toBe(1);
    }
  });

  it("tells apart prefixes whose path keys collide (they share a bucket)", ({ expect }) => {
    // Found by search: two prefixes with the same 30-bit key.
    const [a, b] = ["/c229618", "/c801496"];
    expect(pathKey(a)).toBe(pathKey(b));
    // Nine candidates, so the buckets are used rather than a plain scan.
    const values = [b, a, "/d1", "/d2", "/d3", "/d4", "/d5", "/d6", "/d7"];
    const matches: CompiledMatch[] = values.map((value, i) => ({
      id: `m${i}`,
      rule: i,
      path: { type: "PathPrefix", value },
      headers: [],
      queryParams: [],
    }));
    const set = buildCandidateSet(matches.map(prepareMatch));
    const ask = (path: string) =>
      firstHolding(set, {
        protocol: "HTTP",
        host: "h",
        path,
        method: "GET",
        headers: new Headers(),
        query: new URLSearchParams(),
      });
    expect(ask(`${a}/x`)).toBe(1);
    expect(ask(b)).toBe(0);
    expect(ask("/c2296180")).toBe(-1);
    expect(ask("/d7/y")).toBe(8);
  });
});

describe("host candidates (built per host on first use)", () => {
  const match = (i: number, value: string): CompiledMatch => ({
    id: `m${i}`,
    rule: i,
    path: { type: "PathPrefix", value },
    headers: [],
    queryParams: [],
  });
  const matches = Array.from({ length: 12 }, (_, i) => match(i, `/p${i}`));
  const request = (path: string): RequestFacts => ({
    protocol: "HTTP",
    host: "b.example",
    path,
    method: "GET",
    headers: new Headers(),
    query: new URLSearchParams(),
  });

  it("answers a host's set (the same one every time), and nothing for names it does not hold, prototype names included", ({ expect }) => {
    const prepared: PreparedMatch[] = [];
    const hosts = new HostCandidates({ "a.example": [0, 1], "b.example": [2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 0] }, matches, prepared);
    const a = hosts.get("a.example");
    expect(a?.candidates.map((m) => m.match.id)).toEqual(["m0", "m1"]);
    expect(hosts.get("a.example")).toBe(a);
    // Only the asked host's matches are prepared (their regexes compiled).
    expect(Object.keys(prepared)).toEqual(["0", "1"]);
    const b = hosts.get("b.example")!;
    expect(Object.keys(prepared)).toHaveLength(12);
    expect(firstHolding(b, request("/p7/x"))).toBe(5);
    for (const name of ["c.example", "__proto__", "constructor", "toString", "hasOwnProperty"])
      expect(hosts.get(name), name).toBeUndefined();
  });

  it("a path regex this runtime cannot compile matches nothing; the host's other matches still serve", ({ expect }) => {
    const broken: CompiledMatch = { id: "bad", rule: 0, path: { type: "RegularExpression", value: "/p(" }, headers: [], queryParams: [] };
    const prepared: PreparedMatch[] = [];
    const hosts = new HostCandidates({ "b.example": [0, 1] }, [broken, match(1, "/p")], prepared);
    const set = hosts.get("b.example")!;
    expect(firstHolding(set, request("/p/x"))).toBe(1);
  });
});
