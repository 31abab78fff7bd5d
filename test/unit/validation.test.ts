import { describe, it } from "vitest";
import { parseDuration } from "../../src/gateway-api/duration";
import { hostnameProblem, intersectHostnames } from "../../src/gateway-api/hostname";
import { pathValueProblem } from "../../src/compile/routes/route-matches";
import { regexProblem } from "../../src/compile/routes/re2-syntax";

describe("regular expressions", () => {
  // RE2 matches in linear time, so the shapes that make a backtracking engine explode are fine.
  it.for(["/api/v[0-9]+/.*", "/details/[0-9]+", "(foo|bar)", "^/a(b)?c$", "(a+)+$", "(a|aa)*", "([a-z]*)*x", "(?i)/API/.*"])(
    "accepts %s",
    (pattern, { expect }) => {
      expect(regexProblem(pattern)).toBeNull();
    },
  );
  it.for(["(\\w+)\\1", "(?=a)b", "(?<!a)b", "(", ""])("rejects %s, which RE2 cannot express", (pattern, { expect }) => {
    expect(regexProblem(pattern)).toEqual(expect.any(String));
  });
});

describe("path values", () => {
  it("accepts ordinary paths and rejects the spec's forbidden forms", ({ expect }) => {
    expect(pathValueProblem("/a/b-c_d.e~f")).toBeNull();
    for (const bad of ["a", "/a//b", "/a/./b", "/a/../b", "/a%2Fb", "/a#b", "/a/..", "/a/.", "/a b"])
      expect(pathValueProblem(bad), bad).not.toBeNull();
  });
});

describe("hostnames", () => {
  it("validates RFC 1123 names, wildcards and IP literals", ({ expect }) => {
    expect(hostnameProblem("foo.example.com", false)).toBeNull();
    expect(hostnameProblem("*.example.com", true)).toBeNull();
    expect(hostnameProblem("*.example.com", false)).not.toBeNull();
    expect(hostnameProblem("Foo.com", false)).not.toBeNull();
    expect(hostnameProblem("10.0.0.1", false)).not.toBeNull();
    expect(hostnameProblem("a.*.com", true)).not.toBeNull();
  });

  it("intersects listener and route hostnames as the spec's table says", ({ expect }) => {
    expect(intersectHostnames(undefined, [])).toBeNull();
    expect(intersectHostnames("very.specific.com", [])).toEqual(["very.specific.com"]);
    expect(intersectHostnames("very.specific.com", ["*.specific.com", "non.matching.com"])).toEqual(["very.specific.com"]);
    expect(intersectHostnames("*.wildcard.io", ["wildcard.io", "foo.wildcard.io", "foo.bar.wildcard.io"])).toEqual([
      "foo.bar.wildcard.io",
      "foo.wildcard.io",
    ]);
    expect(intersectHostnames("*.wildcard.io", ["*.foo.wildcard.io"])).toEqual(["*.foo.wildcard.io"]);
    expect(intersectHostnames("*.foo.wildcard.io", ["*.wildcard.io"])).toEqual(["*.foo.wildcard.io"]);
    expect(intersectHostnames("specific.com", ["wrong.com"])).toEqual([]);
  });
});

describe("durations (GEP-2257)", () => {
  it("parses the allowed forms and refuses others", ({ expect }) => {
    expect(parseDuration("500ms")).toBe(500);
    expect(parseDuration("1m30s")).toBe(90_000);
    expect(parseDuration("1h")).toBe(3_600_000);
    expect(parseDuration("0s")).toBe(0);
    for (const bad of ["1.5s", "10", "1d", "", "s", "1h1h1h1h1h"]) expect(parseDuration(bad), bad).toBeNull();
  });
});
