import { createExecutionContext } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import worker from "../../src/index";
import { describe, inject, it } from "vitest";
import { KV_KEYS } from "../../src/table/kv-keys";
import { infraRoute, infraYaml } from "../support/conformance-infra";
import { publishTable, seedYaml } from "./seed-table";

const route = infraRoute;

const get = (path: string, init?: RequestInit) => exports.default.fetch(new Request(`http://example.org${path}`, init));

interface Echo {
  endpoint: string;
  request: { method: string; path: string; query: string; headers: Record<string, string>; bodyBytes: number };
}

describe("proxying", () => {
  it("keeps method, path, query and body, and sets the forwarding headers", async ({ expect }) => {
    await seedYaml(`${infraYaml(inject("originPorts"))}---${route("    - backendRefs: [{ name: infra-backend-v1, port: 8080 }]")}`);
    const response = await get("/a/b?x=1&y=2", {
      method: "POST",
      body: "hello world",
      headers: { "x-custom": "kept", "x-forwarded-for": "10.0.0.9", connection: "x-drop-me", "x-drop-me": "1", "keep-alive": "timeout=5" },
    });
    expect(response.status).toBe(200);
    const echo = (await response.json()) as Echo;
    expect(echo.request).toMatchObject({ method: "POST", path: "/a/b", query: "?x=1&y=2", bodyBytes: 11 });
    expect(echo.request.headers["x-custom"]).toBe("kept");
    expect(echo.request.headers["x-forwarded-host"]).toBe("example.org");
    expect(echo.request.headers["x-forwarded-proto"]).toBe("http");
    expect(echo.request.headers["x-drop-me"]).toBeUndefined();
    expect(echo.request.headers["keep-alive"]).toBeUndefined();
    expect(echo.request.headers["x-request-id"]).toBe(response.headers.get("x-request-id"));
  });

  it("X-Forwarded-Host carries the Host as the client sent it, port included", async ({ expect }) => {
    await seedYaml(`${infraYaml(inject("originPorts"))}---${route("    - backendRefs: [{ name: infra-backend-v1, port: 8080 }]")}`);
    for (const [url, host] of [
      ["http://very.specific.com:1234/", "very.specific.com:1234"],
      ["http://very.specific.com:8080/", "very.specific.com:8080"],
      ["http://Mixed.Example.ORG/", "mixed.example.org"],
    ]) {
      const response = await exports.default.fetch(new Request(url!));
      expect(response.status, url).toBe(200);
      expect(((await response.json()) as Echo).request.headers["x-forwarded-host"], url).toBe(host);
    }
  });

  it("answers a client's Expect: 100-continue itself: the body reaches the origin without the header", async ({ expect }) => {
    // A Node origin answers an Expect with 100 Continue, which workerd's fetch() would take for the final answer.
    await seedYaml(`${infraYaml(inject("originPorts"))}---${route("    - backendRefs: [{ name: infra-backend-v1, port: 8080 }]")}`);
    const response = await get("/upload", { method: "POST", body: "x".repeat(2048), headers: { expect: "100-continue" } });
    expect(response.status).toBe(200);
    const echo = (await response.json()) as Echo;
    expect(echo.request.bodyBytes).toBe(2048);
    expect(echo.request.headers.expect).toBeUndefined();
  });

  it("answers 502 UPSTREAM_INTERIM_RESPONSE when the origin sends an interim 103 first", async ({ expect }) => {
    await seedYaml(`${infraYaml(inject("originPorts"))}---${route("    - backendRefs: [{ name: infra-backend-v1, port: 8080 }]")}`);
    const response = await get("/hints?earlyHints=1");
    expect(response.status).toBe(502);
    expect(await response.json()).toMatchObject({
      error: "UPSTREAM_INTERIM_RESPONSE",
      message: "the upstream server sent a response the gateway cannot forward",
    });
  });

  it("answers 500 for the share of an unresolvable backendRef and for a rule without backends", async ({ expect }) => {
    await seedYaml(
      `${infraYaml(inject("originPorts"))}---${route(`    - matches: [{ path: { type: Exact, value: /missing } }]
      backendRefs: [{ name: nonexistent, port: 8080 }]
    - matches: [{ path: { type: Exact, value: /none } }]
    - matches: [{ path: { type: Exact, value: /zero } }]
      backendRefs: [{ name: infra-backend-v1, port: 8080, weight: 0 }]`)}`,
    );
    const missing = await get("/missing");
    expect(missing.status).toBe(500);
    expect(await missing.json()).toMatchObject({ error: "BACKEND_NOT_RESOLVED" });
    expect((await get("/none")).status).toBe(500);
    const zero = await get("/zero");
    expect(zero.status).toBe(500);
    expect(await zero.json()).toMatchObject({ error: "NO_BACKEND" });
  });

  it("answers 503 when the backend has no ready endpoint", async ({ expect }) => {
    await seedYaml(`${infraYaml(inject("originPorts"))}---
apiVersion: v1
kind: Service
metadata: { name: empty, namespace: gateway-conformance-infra }
spec: { ports: [{ name: http, port: 8080 }] }
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata: { name: empty-1, namespace: gateway-conformance-infra, labels: { kubernetes.io/service-name: empty } }
ports: [{ name: http, port: ${inject("originPorts").v1} }]
endpoints: [{ addresses: ["127.0.0.1"], conditions: { ready: false } }]
---${route("    - backendRefs: [{ name: empty, port: 8080 }]")}`);
    const response = await get("/");
    expect(response.status).toBe(503);
    expect(await response.json()).toMatchObject({ error: "NO_HEALTHY_ENDPOINT", requestId: expect.any(String) });
  });

  it("counts a rule's request timeout from the request's arrival: a slowly uploaded body it buffers is inside it", async ({ expect }) => {
    // A retry policy makes the gateway buffer a small body before the first try.
    await seedYaml(
      `${infraYaml(inject("originPorts"))}---${route(`    - timeouts: { request: 500ms }
      retry: { codes: [503], attempts: 1 }
      backendRefs: [{ name: infra-backend-v1, port: 8080 }]`)}`,
    );
    const slowBody = () =>
      new ReadableStream<Uint8Array>({
        async start(controller) {
          controller.enqueue(new TextEncoder().encode("first half "));
          await new Promise((resolve) => setTimeout(resolve, 800));
          controller.enqueue(new TextEncoder().encode("second half"));
          controller.close();
        },
      });
    const length = String("first half second half".length);
    const late = await get("/upload", { method: "POST", body: slowBody(), headers: { "content-length": length } });
    expect(late.status).toBe(504);
    expect(await late.json()).toMatchObject({ error: "UPSTREAM_TIMEOUT" });
    const quick = await get("/upload", { method: "POST", body: "first half second half" });
    expect(quick.status).toBe(200);
    expect(((await quick.json()) as Echo).request.bodyBytes).toBe(22);
  });

  it("answers 503 with a JSON error naming no address when the endpoint refuses connections (HTTPRouteRetryConnectionError)", async ({
    expect,
  }) => {
    await seedYaml(
      `${infraYaml({ ...inject("originPorts"), v1: 1 })}---${route("    - backendRefs: [{ name: infra-backend-v1, port: 8080 }]")}`,
    );
    const response = await get("/");
    expect(response.status).toBe(503);
    const body = (await response.json()) as Record<string, unknown>;
    expect(body).toEqual({
      error: "UPSTREAM_UNREACHABLE",
      message: "the upstream server could not be reached",
      requestId: response.headers.get("x-request-id"),
    });
    expect(JSON.stringify(body)).not.toMatch(/at |\.ts|stack|127\.0\.0\.1|c1\/|infra-backend/);
  });
});

describe("table loading", () => {
  it("answers 503 with a JSON body while no table was ever pushed", async ({ expect }) => {
    // A table name nothing was pushed under: the isolate has never loaded it.
    const response = await worker.fetch(
      new Request("http://example.org/"),
      { ...env, KEDGE_TABLE: "never-pushed" },
      createExecutionContext(),
    );
    expect(response.status).toBe(503);
    expect(await response.json()).toMatchObject({ error: "ROUTE_TABLE_UNAVAILABLE" });
  });

  it("requests that arrive while an isolate reads its first table wait for it instead of getting 503", async ({ expect }) => {
    const table = await seedYaml(
      `${infraYaml(inject("originPorts"))}---${route("    - backendRefs: [{ name: infra-backend-v1, port: 8080 }]")}`,
    );
    // A name this isolate has never loaded, re-read every 5 s as deployed: only the first request reads KV.
    await publishTable({ ...table, name: "first-load" });
    const bindings = { ...env, KEDGE_TABLE: "first-load", TABLE_REFRESH_SECONDS: "5" };
    const responses = await Promise.all(
      Array.from({ length: 8 }, () => worker.fetch(new Request("http://example.org/"), bindings, createExecutionContext())),
    );
    expect(responses.map((r) => r.status)).toEqual(Array(8).fill(200));
  });

  it("keeps serving the last good table when the pointer names a missing, corrupt or newer-schema blob", async ({ expect }) => {
    const table = await seedYaml(
      `${infraYaml(inject("originPorts"))}---${route("    - backendRefs: [{ name: infra-backend-v2, port: 8080 }]")}`,
    );
    expect((await get("/")).status).toBe(200);
    const pointTo = (version: string) =>
      env.ROUTES.put(KV_KEYS.current(table.name), JSON.stringify({ version, schemaVersion: 1, updatedAt: new Date().toISOString() }));
    await pointTo("does-not-exist");
    expect(((await (await get("/")).json()) as Echo).endpoint).toBe("infra-backend-v2");
    await env.ROUTES.put(KV_KEYS.blob(table.name, "corrupt"), "{not json");
    await pointTo("corrupt");
    expect(((await (await get("/")).json()) as Echo).endpoint).toBe("infra-backend-v2");
    await publishTable({ ...table, schemaVersion: 99 as 1, version: "future" });
    expect(((await (await get("/")).json()) as Echo).endpoint).toBe("infra-backend-v2");
    await env.ROUTES.put(KV_KEYS.current(table.name), "garbage");
    expect(((await (await get("/")).json()) as Echo).endpoint).toBe("infra-backend-v2");
  });

  it("switches to a newly pushed table", async ({ expect }) => {
    await seedYaml(`${infraYaml(inject("originPorts"))}---${route("    - backendRefs: [{ name: infra-backend-v1, port: 8080 }]")}`);
    expect(((await (await get("/")).json()) as Echo).endpoint).toBe("infra-backend-v1");
    await seedYaml(`${infraYaml(inject("originPorts"))}---${route("    - backendRefs: [{ name: infra-backend-v3, port: 8080 }]")}`);
    expect(((await (await get("/")).json()) as Echo).endpoint).toBe("infra-backend-v3");
  });
});
