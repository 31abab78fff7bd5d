import { dispatch } from "./dispatch";
import { describe, inject, it } from "vitest";
import { type Exchange, FILTER_CASES } from "../cases/filters.cases";
import { infraRoute, infraYaml } from "../support/conformance-infra";
import { seedYaml } from "./seed-table";

interface Echo {
  endpoint: string;
  request: { path: string; headers: Record<string, string> };
}

async function exchange(req: Exchange): Promise<Response> {
  const url = `${req.scheme ?? "http"}://${req.host ?? "example.org"}${req.path}`;
  return dispatch(new Request(url, { method: req.method ?? "GET", headers: req.headers, redirect: "manual" }));
}

describe("the real Worker against the conformance tables for filters, timeouts, retries", () => {
  for (const c of FILTER_CASES) {
    it(c.name, { timeout: 30_000 }, async ({ expect }) => {
      await seedYaml(`${infraYaml(inject("originPorts"))}---${c.routes}`);
      for (const req of c.requests) {
        const label = `${req.method ?? "GET"} ${req.scheme ?? "http"}://${req.host ?? "example.org"}${req.path} ${JSON.stringify(req.headers ?? {})}`;
        const response = await exchange(req);
        const { expect: want } = req;
        expect(response.status, label).toBe(want.status ?? 200);
        if (want.location !== undefined) expect(response.headers.get("location"), label).toBe(want.location);
        for (const [name, value] of Object.entries(want.responseHeaders ?? {}))
          expect(response.headers.get(name), `${label} response ${name}`).toBe(value);
        const text = await response.text();
        if (want.error) expect(JSON.parse(text), label).toMatchObject({ error: want.error });
        if (want.backend) {
          const echo = JSON.parse(text) as Echo;
          expect(echo.endpoint, label).toBe(`infra-backend-${want.backend}`);
          if (want.upstreamPath !== undefined) expect(echo.request.path, label).toBe(want.upstreamPath);
          for (const [name, value] of Object.entries(want.upstreamHeaders ?? {})) {
            expect(echo.request.headers[name.toLowerCase()] ?? null, `${label} upstream ${name}`).toBe(value);
          }
        }
      }
    });
  }
});

describe("weights and mirrors (distributions and background copies)", () => {
  const seed = (rules: string) => seedYaml(`${infraYaml(inject("originPorts"))}---${infraRoute(rules)}`);

  it(
    "HTTPRouteWeight: 70/30/0 over 2000 requests, each share within 5 points; weight 0 sees nothing",
    { timeout: 60_000 },
    async ({ expect }) => {
      await seed(`    - backendRefs:
        - { name: infra-backend-v1, port: 8080, weight: 70 }
        - { name: infra-backend-v2, port: 8080, weight: 30 }
        - { name: infra-backend-v3, port: 8080, weight: 0 }`);
      // 2000 samples: 5 points is ~5 standard deviations of a 70% share (500 samples gave ~2.4, and flaked).
      const total = 2000;
      const counts: Record<string, number> = {};
      for (let i = 0; i < total; i++) {
        const response = await dispatch(new Request("http://example.org/", { headers: { "x-jitter": crypto.randomUUID() } }));
        const echo = (await response.json()) as Echo;
        counts[echo.endpoint] = (counts[echo.endpoint] ?? 0) + 1;
      }
      expect(Object.keys(counts).sort()).toEqual(["infra-backend-v1", "infra-backend-v2"]);
      expect(Math.abs((counts["infra-backend-v1"] ?? 0) / total - 0.7)).toBeLessThan(0.05);
      expect(Math.abs((counts["infra-backend-v2"] ?? 0) / total - 0.3)).toBeLessThan(0.05);
    },
  );

  it(
    "HTTPRouteRequestHeaderModifierBackendWeights: each backend's own filter runs only when it is chosen",
    { timeout: 30_000 },
    async ({ expect }) => {
      await seed(`    - backendRefs:
        - { name: infra-backend-v1, port: 8080, weight: 10, filters: [{ type: RequestHeaderModifier, requestHeaderModifier: { set: [{ name: Backend, value: infra-backend-v1 }] } }] }
        - { name: infra-backend-v2, port: 8080, weight: 10, filters: [{ type: RequestHeaderModifier, requestHeaderModifier: { set: [{ name: Backend, value: infra-backend-v2 }] } }] }`);
      const seen = new Set<string>();
      for (let i = 0; i < 100; i++) {
        const echo = (await (await dispatch(new Request("http://example.org/"))).json()) as Echo;
        expect(echo.request.headers.backend).toBe(echo.endpoint);
        seen.add(echo.endpoint);
      }
      expect(seen.size).toBe(2);
    },
  );

  /** How many requests carrying `X-Test-Id: id` an origin has seen, waiting (bounded) for background copies. */
  async function seenBy(port: number, id: string, atLeast: number): Promise<number> {
    let count = 0;
    for (let i = 0; i < 40 && count < atLeast; i++) {
      if (i > 0) await new Promise((r) => setTimeout(r, 50));
      count = ((await (await fetch(`http://127.0.0.1:${port}/__origin/count?testId=${id}`)).json()) as { count: number }).count;
    }
    return count;
  }

  it("HTTPRouteRequestMirror: v1 answers, v2 gets a copy (after the request's header changes)", async ({ expect }) => {
    const ports = inject("originPorts");
    await seed(`    - matches: [{ path: { type: PathPrefix, value: /mirror-and-modify-headers } }]
      filters:
        - { type: RequestHeaderModifier, requestHeaderModifier: { set: [{ name: X-Header-Set, value: set-overwrites-values }] } }
        - { type: RequestMirror, requestMirror: { backendRef: { name: infra-backend-v2, port: 8080 } } }
      backendRefs: [{ name: infra-backend-v1, port: 8080 }]
    - matches: [{ path: { type: PathPrefix, value: /mirror-none } }]
      filters: [{ type: RequestMirror, requestMirror: { backendRef: { name: infra-backend-v3, port: 8080 }, percent: 0 } }]
      backendRefs: [{ name: infra-backend-v1, port: 8080 }]
    - matches: [{ path: { type: PathPrefix, value: /mirror } }]
      filters: [{ type: RequestMirror, requestMirror: { backendRef: { name: infra-backend-v2, port: 8080 } } }]
      backendRefs: [{ name: infra-backend-v1, port: 8080 }]`);
    for (const path of ["/mirror", "/mirror-and-modify-headers"]) {
      const id = crypto.randomUUID();
      const response = await dispatch(new Request(`http://example.org${path}`, { headers: { "x-test-id": id } }));
      const echo = (await response.json()) as Echo;
      expect(echo.endpoint, path).toBe("infra-backend-v1");
      if (path !== "/mirror") expect(echo.request.headers["x-header-set"]).toBe("set-overwrites-values");
      expect(await seenBy(ports.v1, id, 1), path).toBe(1);
      expect(await seenBy(ports.v2, id, 1), path).toBe(1);
    }
    const id = crypto.randomUUID();
    await (await dispatch(new Request("http://example.org/mirror-none", { headers: { "x-test-id": id } }))).arrayBuffer();
    expect(await seenBy(ports.v3, id, 0)).toBe(0);
  });

  it("filters apply in the order written: a mirror listed before a header edit copies the request as it was", async ({ expect }) => {
    const ports = inject("originPorts");
    await seed(`    - matches: [{ path: { type: PathPrefix, value: /before } }]
      filters:
        - { type: RequestMirror, requestMirror: { backendRef: { name: infra-backend-v2, port: 8080 } } }
        - { type: RequestHeaderModifier, requestHeaderModifier: { set: [{ name: X-Test-Id, value: edited }] } }
      backendRefs: [{ name: infra-backend-v1, port: 8080 }]
    - matches: [{ path: { type: PathPrefix, value: /after } }]
      filters:
        - { type: RequestHeaderModifier, requestHeaderModifier: { set: [{ name: X-Test-Id, value: edited }] } }
        - { type: RequestMirror, requestMirror: { backendRef: { name: infra-backend-v3, port: 8080 } } }
      backendRefs: [{ name: infra-backend-v1, port: 8080 }]`);
    const before = crypto.randomUUID();
    const answered = (await (
      await dispatch(new Request("http://example.org/before", { headers: { "x-test-id": before } }))
    ).json()) as Echo;
    expect(answered.request.headers["x-test-id"]).toBe("edited");
    // The copy went out before the edit: v2 sees the client's value; v1 never did.
    expect(await seenBy(ports.v2, before, 1)).toBe(1);
    expect(await seenBy(ports.v1, before, 0)).toBe(0);
    const after = crypto.randomUUID();
    await (await dispatch(new Request("http://example.org/after", { headers: { "x-test-id": after } }))).arrayBuffer();
    // Listed after the edit, the copy carries it: v3 never sees the client's value.
    expect(await seenBy(ports.v3, "edited", 1)).toBeGreaterThanOrEqual(1);
    expect(await seenBy(ports.v3, after, 0)).toBe(0);
  });
});
