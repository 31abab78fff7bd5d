/**
 * Surviving a cluster's death, against the real Worker (workerd, real KV and Durable Objects) and loopback
 * origins: the same manifests in three clusters as one route, one health view consulted by every choice
 * (new traffic, pinned sessions, locality tiers, retries), retry budgets, and the panic case.
 * Clusters east, west and south serve Service `web` from origins v1, v2 and v3; port 1 refuses connections.
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, inject, it } from "vitest";
import { createApp } from "../../src/worker/app";
import { compileYaml } from "./compile";
import { endpointSlice, service, yamlDocs } from "../support/manifests";
import { dispatch } from "./dispatch";
import { cronRun, healthSwitch } from "./active-health";
import { publishTable } from "./seed-table";

/** This file's own health switch on the shared origins. */
const HEALTH = healthSwitch("failover");

const ports = inject("originPorts");
const MINUTE = 60_000;
/** A port that refuses connections, new for each test (passive health remembers an endpoint for a while). */
let lastDead = 0;
const deadPort = () => ++lastDead;

function edge(extra = ""): string {
  return `
apiVersion: kedge.dev/v1alpha1
kind: EdgeConfig
metadata: { name: test }
spec:
  gatewayClassName: kedge
${extra}  clusters:
    - { name: east, locality: { continent: NA, countries: [US], colos: [IAD] } }
    - { name: west, locality: { continent: NA, countries: [US], colos: [SFO] } }
    - { name: south, locality: { continent: SA, countries: [BR], colos: [GRU] } }
`;
}

const HEALTH_CHECKS = `  healthChecks: { path: ${HEALTH.path}, timeout: 1s, healthyThreshold: 1, unhealthyThreshold: 1 }\n`;

/** The manifests every cluster gets alike: Gateway, HTTPRoute `web` (with `rule` extra YAML), Service web. */
function sameEverywhere(rule = ""): string {
  return `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: { name: gw, namespace: shop }
spec:
  gatewayClassName: kedge
  listeners: [{ name: http, protocol: HTTP, port: 80, hostname: shop.example }]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: { name: web, namespace: shop }
spec:
  parentRefs: [{ name: gw }]
  rules:
    - backendRefs: [{ name: web, port: 8080 }]
${rule}---
${service("web", "shop")}`;
}

/** One cluster's own part: the EndpointSlice of Service web on `port`. */
const slice = (cluster: string, port: number) => endpointSlice({ service: "web", name: `web-${cluster}`, namespace: "shop", port });

async function publish(ports: Partial<Record<"east" | "west" | "south", number>>, rule = "", extra = "", more = "") {
  const clusters = Object.fromEntries(
    Object.entries(ports).map(([cluster, port]) => [cluster, yamlDocs(sameEverywhere(rule), slice(cluster, port), more)]),
  );
  const { table, diagnostics } = await compileYaml(edge(extra), clusters);
  await publishTable(table);
  return { table, diagnostics };
}

interface Answer {
  status: number;
  endpoint: string;
  cookie: string | null;
}

async function ask(init: RequestInit & { cf?: Record<string, string> } = {}, path = "/"): Promise<Answer> {
  const response = await dispatch(new Request(`http://shop.example${path}`, init));
  const body = (await response.json()) as { endpoint?: string; error?: string };
  return { status: response.status, endpoint: body.endpoint ?? body.error ?? "?", cookie: response.headers.get("set-cookie") };
}

async function answered(count: number, init: RequestInit & { cf?: Record<string, string> } = {}): Promise<string[]> {
  const seen = new Set<string>();
  for (let i = 0; i < count; i++) seen.add((await ask(init)).endpoint);
  return [...seen].sort();
}

const LIVE = { east: ports.v1, west: ports.v2, south: ports.v3 };
const EVERY_ORIGIN = ["infra-backend-v1", "infra-backend-v2", "infra-backend-v3"];

afterEach(async () => {
  for (const port of [ports.v1, ports.v2, ports.v3]) await HEALTH.set(port, 200);
  // Let the active view forget this test's unhealthy endpoints.
  await publish(LIVE, "", HEALTH_CHECKS);
  await cronRun();
});

describe("the same manifests applied to three clusters", () => {
  it("are one route that spreads over every cluster's endpoints", async ({ expect }) => {
    const { table, diagnostics } = await publish(LIVE);
    expect(table.rules.map((r) => r.id)).toEqual(["east,west,south/shop/web/rule/0"]);
    expect(diagnostics.filter((d) => d.severity !== "info")).toEqual([]);
    expect(await answered(60)).toEqual(EVERY_ORIGIN);
  });

  it("keep serving every idempotent request when a cluster's endpoint refuses connections", async ({ expect }) => {
    await publish({ east: deadPort(), west: ports.v2, south: ports.v3 });
    const answers = await Promise.all(Array.from({ length: 40 }, () => ask()));
    expect(answers.filter((a) => a.status !== 200)).toEqual([]);
    expect(new Set(answers.map((a) => a.endpoint))).toEqual(new Set(["infra-backend-v2", "infra-backend-v3"]));
  });

  it("do not replay a POST that could not connect; once the dead endpoint is ejected, POSTs are served", async ({ expect }) => {
    await publish({ east: deadPort(), west: ports.v2, south: ports.v3 });
    const statuses: number[] = [];
    for (let i = 0; i < 40; i++) statuses.push((await ask({ method: "POST", body: "order" })).status);
    const failed = statuses.filter((s) => s !== 200);
    // Each failure is a 503 (never replayed elsewhere); three in a row eject the endpoint, so no more than three.
    expect(failed.every((s) => s === 503)).toBe(true);
    expect(failed.length).toBeGreaterThanOrEqual(1);
    expect(failed.length).toBeLessThanOrEqual(3);
    expect(statuses.slice(-10)).toEqual(Array(10).fill(200));
  });
});

describe("pinned sessions and the health view", () => {
  const STICKY = "      sessionPersistence: { sessionName: shop, idleTimeout: 10m }\n";

  it("a session whose endpoint turns unhealthy moves to another endpoint with a new token, which then sticks", async ({ expect }) => {
    await publish(LIVE, STICKY, HEALTH_CHECKS);
    const first = await ask();
    expect(first.cookie).toMatch(/^shop=/);
    const token = first.cookie!.split(";")[0]!;
    const pinnedPort = { "infra-backend-v1": ports.v1, "infra-backend-v2": ports.v2, "infra-backend-v3": ports.v3 }[first.endpoint]!;
    for (let i = 0; i < 5; i++) expect((await ask({ headers: { cookie: token } })).endpoint).toBe(first.endpoint);

    await HEALTH.set(pinnedPort, 503);
    await cronRun();
    const moved = await ask({ headers: { cookie: token } });
    expect(moved.status).toBe(200);
    expect(moved.endpoint).not.toBe(first.endpoint);
    expect(moved.cookie).toMatch(/^shop=/);
    const newToken = moved.cookie!.split(";")[0]!;
    expect(newToken).not.toBe(token);
    for (let i = 0; i < 10; i++) {
      const next = await ask({ headers: { cookie: newToken } });
      expect(next.endpoint).toBe(moved.endpoint);
      expect(next.cookie).toBeNull();
    }
  });

  it("a cluster leaving and joining moves only the sessions pinned to it; the others keep their endpoints and tokens", async ({
    expect,
  }) => {
    await publish(LIVE, STICKY);
    const sessions: { cookie: string; endpoint: string }[] = [];
    for (let i = 0; i < 30; i++) {
      const first = await ask();
      sessions.push({ cookie: first.cookie!.split(";")[0]!, endpoint: first.endpoint });
    }
    expect(new Set(sessions.map((s) => s.endpoint))).toEqual(new Set(EVERY_ORIGIN));
    // west leaves (its manifests gone): the merged backend's clusters, and its id, change.
    await publish({ east: ports.v1, south: ports.v3 }, STICKY);
    for (const session of sessions) {
      const next = await ask({ headers: { cookie: session.cookie } });
      if (session.endpoint === "infra-backend-v2") {
        expect(next.endpoint).not.toBe("infra-backend-v2");
        expect(next.cookie).toMatch(/^shop=/);
        session.cookie = next.cookie!.split(";")[0]!;
        session.endpoint = next.endpoint;
      } else {
        expect(next).toMatchObject({ endpoint: session.endpoint, cookie: null });
      }
    }
    // west joins again: nobody moves.
    await publish(LIVE, STICKY);
    for (const session of sessions)
      expect(await ask({ headers: { cookie: session.cookie } })).toMatchObject({ endpoint: session.endpoint, cookie: null });
  });

  it("a request whose pin failed does not extend the session: it idles out from its last answered request", async ({ expect }) => {
    let clock = Date.now();
    const app = createApp({ now: () => clock });
    const send = async (cookie?: string) => {
      const ctx = createExecutionContext();
      const response = await app.fetch(new Request("http://shop.example/", cookie ? { headers: { cookie } } : {}), env, ctx);
      await waitOnExecutionContext(ctx);
      const body = (await response.json()) as { endpoint?: string };
      return { endpoint: body.endpoint, cookie: response.headers.get("set-cookie") };
    };
    await publish(LIVE, STICKY, HEALTH_CHECKS);
    const first = await send();
    const token = first.cookie!.split(";")[0]!;
    const pinnedPort = { "infra-backend-v1": ports.v1, "infra-backend-v2": ports.v2, "infra-backend-v3": ports.v3 }[first.endpoint!]!;
    await HEALTH.set(pinnedPort, 503);
    await cronRun();
    clock += 6 * MINUTE;
    // The pin cannot serve: moved (a new token), the old session untouched.
    expect((await send(token)).cookie).toMatch(/^shop=/);
    await HEALTH.set(pinnedPort, 200);
    await cronRun();
    clock += 5 * MINUTE;
    // 11 minutes after its last answered request: idle for longer than 10m, so it has ended.
    const late = await send(token);
    expect(late.cookie).toMatch(/^shop=/);
  });
});

describe("locality tiers count only usable endpoints", () => {
  const LOCALITY = `  locality: { minHealthyEndpoints: 1 }\n${HEALTH_CHECKS}`;
  const IAD = { cf: { colo: "IAD", country: "US", continent: "NA" } };

  it("requests from the nearest cluster's location spill over to the next tier when its endpoint is unhealthy", async ({ expect }) => {
    await publish(LIVE, "", LOCALITY);
    expect(await answered(20, IAD)).toEqual(["infra-backend-v1"]);
    await HEALTH.set(ports.v1, 503);
    await cronRun();
    // Same country next (west), not the other continent.
    expect(await answered(20, IAD)).toEqual(["infra-backend-v2"]);
    await HEALTH.set(ports.v2, 503);
    await cronRun();
    expect(await answered(20, IAD)).toEqual(["infra-backend-v3"]);
  });

  it("a retry leaves the tier: the nearest endpoint refusing connections, its requests are answered elsewhere", async ({ expect }) => {
    await publish({ east: deadPort(), west: ports.v2, south: ports.v3 }, "", LOCALITY);
    const answers = await Promise.all(Array.from({ length: 20 }, () => ask(IAD)));
    expect(answers.filter((a) => a.status !== 200)).toEqual([]);
    expect(answers.map((a) => a.endpoint)).toContain("infra-backend-v2");
  });
});

describe("when every endpoint is unhealthy", () => {
  it("the gateway still tries them all (panic), rather than answering without trying", async ({ expect }) => {
    await publish(LIVE, "", HEALTH_CHECKS);
    for (const port of [ports.v1, ports.v2, ports.v3]) await HEALTH.set(port, 503);
    await cronRun();
    expect(await answered(60)).toEqual(EVERY_ORIGIN);
  });
});

describe("retry budget", () => {
  const ALWAYS_500 = "?status=500&succeedAfter=1000000";
  const RETRY = "      retry: { codes: [500], attempts: 10, backoff: 1ms }\n";

  async function originHits(id: string): Promise<number> {
    const counts = await Promise.all(
      [ports.v1, ports.v2, ports.v3].map(async (port) => {
        const seen = (await (await fetch(`http://127.0.0.1:${port}/__origin/count?testId=${id}`)).json()) as { count: number };
        return seen.count;
      }),
    );
    return counts.reduce((a, b) => a + b, 0);
  }

  it("an XBackendTrafficPolicy's retryConstraint caps retries to a failing backend at its share of requests; past it, 503", async ({
    expect,
  }) => {
    const policy = `apiVersion: gateway.networking.x-k8s.io/v1alpha1
kind: XBackendTrafficPolicy
metadata: { name: budget, namespace: shop }
spec:
  targetRefs: [{ group: "", kind: Service, name: web }]
  retryConstraint: { budget: { percent: 50, interval: 10s }, minRetryRate: { count: 1, interval: 1h } }
`;
    const { table } = await publish(LIVE, RETRY, "", policy);
    expect(Object.values(table.backends)[0]?.retryBudget).toMatchObject({ percent: 50, minRetries: 1, minIntervalMs: 3_600_000 });
    const id = crypto.randomUUID();
    const requests = 40;
    const statuses: Record<number, number> = {};
    for (let i = 0; i < requests; i++) {
      const response = await dispatch(new Request(`http://shop.example/${ALWAYS_500}&key=${id}-${i}`, { headers: { "x-test-id": id } }));
      expect(response.headers.get("x-request-id")).toBeTruthy();
      // A retry the budget refuses answers 503 (GEP-3388); one it allowed got the origin's 500 to the end.
      expect([500, 503]).toContain(response.status);
      statuses[response.status] = (statuses[response.status] ?? 0) + 1;
      if (response.status === 503) expect(await response.json()).toMatchObject({ error: "RETRY_BUDGET_EXCEEDED" });
      else await response.arrayBuffer();
    }
    expect(statuses[503]).toBeGreaterThan(0);
    // Without the budget: 40 × 11 tries. With it: 40 tries and at most half as many retries.
    const hits = await originHits(id);
    expect(hits).toBeGreaterThan(requests);
    expect(hits).toBeLessThanOrEqual(requests * 1.5);
  });
});
