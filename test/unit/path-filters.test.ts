import { describe, it } from "vitest";
import { redirectLocation } from "../../src/routing/redirect";
import { replacePrefix } from "../../src/routing/rewrite-path";

describe("ReplacePrefixMatch (semantics brief §2 table)", () => {
  const table: [string, string, string, string][] = [
    ["/foo/bar", "/foo", "/xyz", "/xyz/bar"],
    ["/foo/bar", "/foo", "/xyz/", "/xyz/bar"],
    ["/foo", "/foo", "/xyz", "/xyz"],
    ["/foo/", "/foo", "/xyz", "/xyz/"],
    ["/foo/bar", "/foo", "", "/bar"],
    ["/foo/", "/foo", "", "/"],
    ["/foo", "/foo", "", "/"],
    ["/foo/", "/foo", "/", "/"],
    ["/foo", "/foo", "/", "/"],
    ["/prefix/one/two", "/prefix/one", "/one", "/one/two"],
    ["/strip-prefix/three", "/strip-prefix", "/", "/three"],
  ];
  for (const [path, prefix, replacement, expected] of table) {
    it(`${path} with prefix ${prefix} → ${JSON.stringify(replacement)} gives ${expected}`, ({ expect }) => {
      expect(replacePrefix(path, prefix, replacement)).toBe(expected);
    });
  }
});

describe("RequestRedirect Location (HTTPRouteRedirectPortAndScheme)", () => {
  const req = (listenerPort: number, scheme: "http" | "https" = "http") => ({
    scheme,
    host: "example.org",
    path: "/p",
    search: "",
    listenerPort,
  });
  const cases: [string, Parameters<typeof redirectLocation>[0], ReturnType<typeof req>, string][] = [
    ["scheme nil, port nil on :80", { type: "RequestRedirect", statusCode: 302 }, req(80), "http://example.org/p"],
    ["scheme nil, port 8080 on :80", { type: "RequestRedirect", port: 8080, statusCode: 302 }, req(80), "http://example.org:8080/p"],
    ["scheme https, port nil on :80", { type: "RequestRedirect", scheme: "https", statusCode: 302 }, req(80), "https://example.org/p"],
    [
      "scheme https, port 8443 on :80",
      { type: "RequestRedirect", scheme: "https", port: 8443, statusCode: 302 },
      req(80),
      "https://example.org:8443/p",
    ],
    [
      "scheme nil, port nil on :8080 uses the listener port",
      { type: "RequestRedirect", statusCode: 302 },
      req(8080),
      "http://example.org:8080/p",
    ],
    ["scheme nil, port 80 on :8080", { type: "RequestRedirect", port: 80, statusCode: 302 }, req(8080), "http://example.org/p"],
    [
      "scheme http, port nil on HTTPS :443",
      { type: "RequestRedirect", scheme: "http", statusCode: 302 },
      req(443, "https"),
      "http://example.org/p",
    ],
    ["scheme nil, port nil on HTTPS :443", { type: "RequestRedirect", statusCode: 302 }, req(443, "https"), "https://example.org/p"],
    [
      "hostname and full path",
      { type: "RequestRedirect", hostname: "other.org", path: { type: "ReplaceFullPath", value: "/full" }, statusCode: 301 },
      req(80),
      "http://other.org/full",
    ],
  ];
  for (const [name, filter, input, expected] of cases) {
    it(name, ({ expect }) => expect(redirectLocation(filter, input)).toBe(expected));
  }
});
