/**
 * Each test tries one way to misuse the gateway and shows it refused: reaching anything but the
 * table's endpoints, smuggling headers, oversized requests, the status endpoint without its token,
 * an external endpoint outside the egress allow-list.
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, inject, it } from "vitest";
import { createApp } from "../../src/worker/app";
import { discardRequestBody, MAX_DISCARD_BYTES } from "../../src/worker/request-body";
import { infraRoute, infraYaml } from "../support/conformance-infra";
import { endpointSlice, service, yamlDocs } from "../support/manifests";
import { dispatch } from "./dispatch";
import type { RouteTable } from "../../src/table/route-table";
import { publishTable, seedYaml, withDisallowedEndpoints } from "./seed-table";

const NS = "gateway-conformance-infra";

interface Echo {
  endpoint: string;
  request: { path: string; headers: Record<string, string> };
}

/** A catch-all route to v1 and a /public route to v2; v3 is in no route. */
const seed = () =>
  seedYaml(
    `${infraYaml(inject("originPorts"))}---${infraRoute(`    - matches: [{ path: { type: PathPrefix, value: /public } }]
      backendRefs: [{ name: infra-backend-v2, port: 8080 }]
    - backendRefs: [{ name: infra-backend-v1, port: 8080 }]`)}`,
  );

const echo = async (response: Response) => (await response.json()) as Echo;

describe("only the table's endpoints can be reached", () => {
  it("a Host naming an origin directly is just another host: served by the table's route, never that origin", async ({ expect }) => {
    await seed();
    const v3 = inject("originPorts").v3;
    for (const host of [`127.0.0.1:${v3}`, "localhost", "[::1]", "metadata.google.internal"]) {
      const response = await dispatch(new Request(`http://${host}/x`));
      expect(response.status, host).toBe(200);
      expect((await echo(response)).endpoint, host).toBe("infra-backend-v1");
    }
  });

  it("a path that looks like a URL, dot segments and encoded slashes stay paths on the chosen endpoint", async ({ expect }) => {
    await seed();
    const cases: [string, string, string][] = [
      ["//evil.example/steal", "infra-backend-v1", "//evil.example/steal"],
      ["/public/../private", "infra-backend-v1", "/private"],
      ["/public/..%2F..%2Fadmin", "infra-backend-v2", "/public/..%2F..%2Fadmin"],
      ["/%2e%2e/%2e%2e/etc/passwd", "infra-backend-v1", "/etc/passwd"],
      ["/http://127.0.0.1:1/", "infra-backend-v1", "/http://127.0.0.1:1/"],
    ];
    for (const [path, endpoint, seen] of cases) {
      const response = await dispatch(new Request(`http://example.org${path}`));
      expect(response.status, path).toBe(200);
      const body = await echo(response);
      expect(body.endpoint, path).toBe(endpoint);
      expect(body.request.path, path).toBe(seen);
    }
  });

  it("hop-by-hop headers, the headers Connection names, and gateway-internal x-kedge-* headers never reach the origin", async ({
    expect,
  }) => {
    await seed();
    const response = await dispatch(
      new Request("http://example.org/", {
        headers: {
          connection: "close, x-secret",
          "x-secret": "1",
          "keep-alive": "timeout=5",
          "proxy-authorization": "Basic eA==",
          "proxy-connection": "keep-alive",
          "x-kedge-trusted": "yes",
          te: "trailers",
          upgrade: "h2c",
        },
      }),
    );
    const { headers } = (await echo(response)).request;
    const hopByHop = ["x-secret", "keep-alive", "proxy-authorization", "proxy-connection", "x-kedge-trusted", "te", "upgrade"];
    for (const name of hopByHop) expect(headers[name], name).toBeUndefined();
    expect(headers.connection ?? "").not.toContain("x-secret");
  });
});

describe("size limits", () => {
  it("answers 414 for an over-long URL and 431 for over-large headers, without touching an origin", async ({ expect }) => {
    await seed();
    const long = await dispatch(new Request(`http://example.org/${"a".repeat(9000)}`));
    expect(long.status).toBe(414);
    expect(await long.json()).toMatchObject({ error: "URI_TOO_LONG" });
    const headers: Record<string, string> = {};
    for (let i = 0; i < 40; i++) headers[`x-big-${i}`] = "b".repeat(1000);
    const big = await dispatch(new Request("http://example.org/", { headers }));
    expect(big.status).toBe(431);
    expect(await big.json()).toMatchObject({ error: "HEADERS_TOO_LARGE" });
  });
});

describe("bodies the gateway answers without forwarding", () => {
  it("reads at most about 1 MiB of one before giving up on it: an endless upload cannot hold a 404 open", async ({ expect }) => {
    let pulled = 0;
    let cancelled = false;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled += 64 * 1024;
        controller.enqueue(new Uint8Array(64 * 1024));
      },
      cancel() {
        cancelled = true;
      },
    });
    await discardRequestBody(new Request("http://example.org/", { method: "POST", body: endless }));
    expect(cancelled).toBe(true);
    expect(pulled).toBeGreaterThan(MAX_DISCARD_BYTES);
    expect(pulled).toBeLessThan(MAX_DISCARD_BYTES + 4 * 64 * 1024);
  });

  it("waits about a second at most for one that trickles: a slow upload cannot hold a 404 back", async ({ expect }) => {
    let cancelled = false;
    const stalled = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new Uint8Array(10)); // then nothing more, ever
      },
      cancel() {
        cancelled = true;
      },
    });
    await discardRequestBody(new Request("http://example.org/", { method: "POST", body: stalled }));
    expect(cancelled).toBe(true);
  });

  it("reads a small one to its end", async ({ expect }) => {
    const request = new Request("http://example.org/", { method: "POST", body: "x".repeat(1000) });
    await discardRequestBody(request);
    expect(request.bodyUsed).toBe(true);
  });
});

describe("status endpoint", () => {
  const withToken = { ...env, KEDGE_STATUS_TOKEN: "correct-horse-battery-staple" };
  const call = async (app: ReturnType<typeof createApp>, bindings: object, auth?: string) => {
    const ctx = createExecutionContext();
    const response = await app.fetch(
      new Request("http://example.org/.well-known/kedge/status", { headers: auth ? { authorization: auth } : {} }),
      bindings,
      ctx,
    );
    await waitOnExecutionContext(ctx);
    return response;
  };

  it("is off without the token secret: the path is routed like any other", async ({ expect }) => {
    await seed();
    const response = await call(createApp(), env);
    expect((await echo(response)).endpoint).toBe("infra-backend-v1");
  });

  it("refuses a missing or wrong token with 401, and answers the right one with the table and endpoints", async ({ expect }) => {
    const table = await seed();
    const app = createApp();
    for (const auth of [
      undefined,
      "Bearer wrong",
      "Bearer correct-horse-battery-stapl",
      "correct-horse-battery-staple-and-more",
      "correct-horse-battery-staple",
      "Basic correct-horse-battery-staple",
      "Bearer",
    ]) {
      const response = await call(app, withToken, auth);
      expect(response.status, String(auth)).toBe(401);
      expect(response.headers.get("www-authenticate")).toBe('Bearer realm="kedge status"');
      expect(await response.json()).toMatchObject({ error: "UNAUTHORIZED" });
    }
    const ok = await call(app, withToken, "Bearer correct-horse-battery-staple");
    expect(ok.status).toBe(200);
    const body = (await ok.json()) as { table: { version: string }; backends: Record<string, { id: string; ejected: boolean }[]> };
    expect(body.table.version).toBe(table.version);
    expect(Object.keys(body.backends).sort()).toEqual([
      "Service/c1/gateway-conformance-infra/infra-backend-v1:8080",
      "Service/c1/gateway-conformance-infra/infra-backend-v2:8080",
    ]);
  });
});

describe("egress allow-list at the edge", () => {
  it("never contacts an external endpoint outside the allow-list, even if the table names one", async ({ expect }) => {
    const table = await seed();
    await publishTable(withDisallowedEndpoints(table, "Service/c1/gateway-conformance-infra/infra-backend-v1:8080", "beef0"));
    const response = await dispatch(new Request("http://example.org/"));
    expect(response.status).toBe(502);
    expect(await response.json()).toMatchObject({ error: "EGRESS_NOT_ALLOWED" });
  });

  it("never contacts an external endpoint on loopback or private space, with no allow-list, unless the table allows localhost", async ({
    expect,
  }) => {
    const table = await seed();
    const backendId = "Service/c1/gateway-conformance-infra/infra-backend-v1:8080";
    // As if altered after the sync: the backend's endpoint made an external one on the loopback address it has.
    const tampered = (tag: string, egress?: RouteTable["egress"]) => {
      const t = withDisallowedEndpoints(table, backendId, tag);
      if (egress) t.egress = egress;
      else delete t.egress;
      return t;
    };
    await publishTable(tampered("beef3"));
    const refused = await dispatch(new Request("http://example.org/"));
    expect(refused.status).toBe(502);
    expect(await refused.json()).toMatchObject({ error: "EGRESS_NOT_ALLOWED" });
    await publishTable(tampered("beef4", { allowLocalhost: true }));
    expect((await echo(await dispatch(new Request("http://example.org/")))).endpoint).toBe("infra-backend-v1");
  });

  it("never mirrors to one either: the request is served, the copy is not sent", async ({ expect }) => {
    const ports = inject("originPorts");
    const table = await seedYaml(
      `${infraYaml(ports)}---${infraRoute(`    - filters: [{ type: RequestMirror, requestMirror: { backendRef: { name: infra-backend-v2, port: 8080 } } }]
      backendRefs: [{ name: infra-backend-v1, port: 8080 }]`)}`,
    );
    await publishTable(withDisallowedEndpoints(table, "Service/c1/gateway-conformance-infra/infra-backend-v2:8080", "beef1"));
    const id = crypto.randomUUID();
    const response = await dispatch(new Request("http://example.org/", { headers: { "x-test-id": id } }));
    expect((await echo(response)).endpoint).toBe("infra-backend-v1");
    // dispatch waited for the background work, so a copy would have been counted by now.
    const seen = (await (await fetch(`http://127.0.0.1:${ports.v2}/__origin/count?testId=${id}`)).json()) as { count: number };
    expect(seen.count).toBe(0);
  });
});

describe("passive health", () => {
  it("a dead endpoint's requests fail over to a live one, and the dead one is ejected", async ({ expect }) => {
    const ports = inject("originPorts");
    // Port 1 on loopback: nothing listens there, so every connection is refused.
    const slices = [ports.v1, 1].map((port, i) => endpointSlice({ service: "flaky", name: `flaky-${i}`, namespace: NS, port }));
    await seedYaml(
      yamlDocs(infraYaml(ports), service("flaky", NS), ...slices, infraRoute("    - backendRefs: [{ name: flaky, port: 8080 }]")),
    );
    const app = createApp();
    const bindings = { ...env, KEDGE_STATUS_TOKEN: "t0ken-for-this-test" };
    for (let i = 0; i < 40; i++) {
      const ctx = createExecutionContext();
      const response = await app.fetch(new Request(`http://example.org/item/${i}`), bindings, ctx);
      await waitOnExecutionContext(ctx);
      expect(response.status, `request ${i}`).toBe(200);
      expect((await echo(response)).endpoint).toBe("infra-backend-v1");
    }
    const ctx = createExecutionContext();
    const status = await app.fetch(
      new Request("http://example.org/.well-known/kedge/status", { headers: { authorization: "Bearer t0ken-for-this-test" } }),
      bindings,
      ctx,
    );
    const body = (await status.json()) as { backends: Record<string, { id: string; ejected: boolean }[]> };
    const endpoints = body.backends["Service/c1/gateway-conformance-infra/flaky:8080"]!;
    expect(endpoints.find((e) => e.id.endsWith(":1"))?.ejected).toBe(true);
    expect(endpoints.find((e) => e.id.endsWith(`:${ports.v1}`))?.ejected).toBe(false);
  });
});

describe("regular expressions cannot make a request expensive", () => {
  it("a path of 3,000 slashes against /api/.*/.*/.*/items is answered at once (RE2: linear time), and real paths still match", async ({
    expect,
  }) => {
    await seedYaml(
      `${infraYaml(inject("originPorts"))}---${infraRoute(`    - matches: [{ path: { type: RegularExpression, value: "/api/.*/.*/.*/items" } }]
      backendRefs: [{ name: infra-backend-v2, port: 8080 }]
    - matches: [{ headers: [{ type: RegularExpression, name: x-tenant, value: "(a|aa)+b" }] }]
      backendRefs: [{ name: infra-backend-v3, port: 8080 }]`)}`,
    );
    const match = await dispatch(new Request("http://example.org/api/v1/shop/cart/items"));
    expect(((await match.json()) as Echo).endpoint).toBe("infra-backend-v2");
    // A backtracking engine needs seconds for each of these; the bound is generous, the difference is orders of magnitude.
    const started = Date.now();
    const hostilePath = await dispatch(new Request(`http://example.org/api/${"/".repeat(3000)}`));
    const hostileHeader = await dispatch(new Request("http://example.org/x", { headers: { "x-tenant": `${"a".repeat(5000)}c` } }));
    const elapsed = Date.now() - started;
    expect(hostilePath.status).toBe(404);
    expect(hostileHeader.status).toBe(404);
    expect(elapsed).toBeLessThan(1000);
  });
});
