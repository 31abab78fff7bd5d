import { describe, inject, it } from "vitest";
import { compileYaml } from "./compile";
import { EDGE_YAML, infraRoute, infraYaml } from "../support/conformance-infra";
import { dispatch } from "./dispatch";
import { seedYaml } from "./seed-table";

const RULES = `    - matches: [{ path: { type: PathPrefix, value: /creds } }]
      filters:
        - type: CORS
          cors:
            allowOrigins: ["https://app.example", "https://*.partner.example"]
            allowCredentials: true
            allowMethods: ["*"]
            allowHeaders: [x-trace]
            exposeHeaders: [x-request-id]
            maxAge: 600
      backendRefs: [{ name: infra-backend-v1, port: 8080 }]
    - matches: [{ path: { type: PathPrefix, value: /any } }]
      filters: [{ type: CORS, cors: { allowOrigins: ["*"], allowMethods: [GET, POST] } }]
      backendRefs: [{ name: infra-backend-v1, port: 8080 }]`;

const preflight = (path: string, origin: string) =>
  dispatch(
    new Request(`http://example.org${path}`, {
      method: "OPTIONS",
      headers: { origin, "access-control-request-method": "PUT", "access-control-request-headers": "x-trace" },
    }),
  );

describe("CORS filter", () => {
  it("answers an allowed preflight itself, naming the origin when credentials are allowed", async ({ expect }) => {
    await seedYaml(`${infraYaml(inject("originPorts"))}---${infraRoute(RULES)}`);
    for (const origin of ["https://app.example", "https://eu.partner.example"]) {
      const response = await preflight("/creds/x", origin);
      expect(response.status, origin).toBe(204);
      expect(Object.fromEntries(response.headers)).toMatchObject({
        "access-control-allow-origin": origin,
        "access-control-allow-credentials": "true",
        "access-control-allow-methods": "PUT",
        "access-control-allow-headers": "x-trace",
        "access-control-max-age": "600",
        // HTTPRouteCORS expects the rule's exposeHeaders on the preflight answer too.
        "access-control-expose-headers": "x-request-id",
      });
    }
  });

  it("gives a disallowed origin no CORS headers, so the browser refuses it", async ({ expect }) => {
    await seedYaml(`${infraYaml(inject("originPorts"))}---${infraRoute(RULES)}`);
    for (const origin of ["https://evil.example", "https://app.example.evil", "http://app.example", "https://partner.example"]) {
      const response = await preflight("/creds/x", origin);
      expect(response.status, origin).toBe(204);
      expect(response.headers.get("access-control-allow-origin"), origin).toBeNull();
      const actual = await dispatch(new Request("http://example.org/creds/x", { headers: { origin } }));
      expect(actual.status, origin).toBe(200);
      expect(actual.headers.get("access-control-allow-origin"), origin).toBeNull();
    }
  });

  it("adds the headers to actual responses: the origin with credentials, * without; Vary: Origin", async ({ expect }) => {
    await seedYaml(`${infraYaml(inject("originPorts"))}---${infraRoute(RULES)}`);
    const creds = await dispatch(new Request("http://example.org/creds/x", { headers: { origin: "https://app.example" } }));
    expect(creds.headers.get("access-control-allow-origin")).toBe("https://app.example");
    expect(creds.headers.get("access-control-expose-headers")).toBe("x-request-id");
    expect(creds.headers.get("vary")).toContain("Origin");
    const any = await dispatch(new Request("http://example.org/any", { headers: { origin: "https://whoever.example" } }));
    expect(any.headers.get("access-control-allow-origin")).toBe("*");
    expect(any.headers.get("access-control-allow-credentials")).toBeNull();
    const anyPreflight = await preflight("/any", "https://whoever.example");
    expect(anyPreflight.headers.get("access-control-allow-methods")).toBe("GET, POST");
  });

  it("is refused on a backendRef, and a malformed origin is refused at sync", async ({ expect }) => {
    const onBackend = await compileYaml(EDGE_YAML, {
      c1: `${infraYaml(inject("originPorts"))}---${infraRoute("    - backendRefs: [{ name: infra-backend-v1, port: 8080, filters: [{ type: CORS, cors: { allowOrigins: ['*'] } }] }]")}`,
    });
    expect(onBackend.diagnostics).toContainEqual(
      expect.objectContaining({ reason: "UnsupportedValue", message: expect.stringContaining("CORS applies to a whole rule") }),
    );
    const badOrigin = await compileYaml(EDGE_YAML, {
      c1: `${infraYaml(inject("originPorts"))}---${infraRoute("    - filters: [{ type: CORS, cors: { allowOrigins: ['app.example/path'] } }]\n      backendRefs: [{ name: infra-backend-v1, port: 8080 }]")}`,
    });
    expect(badOrigin.diagnostics).toContainEqual(
      expect.objectContaining({
        field: "spec.rules[0].filters[0].cors.allowOrigins[0]",
        message: "must be an origin like https://app.example.com, https://*.example.com, or *; the route is not served",
      }),
    );
  });
});
