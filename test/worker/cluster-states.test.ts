/**
 * What an operator declares of a cluster in kedge.yaml, against the real Worker (workerd, real KV and
 * Durable Objects) and loopback origins: a draining cluster takes no new sessions or unpinned requests
 * while its pinned sessions keep going; a disabled one takes nothing; a standby cluster (a higher
 * priority number) takes traffic only while the primaries lack usable endpoints, before locality.
 * Clusters east, west and south serve Service `web` from origins v1, v2 and v3.
 */
import { afterEach, describe, inject, it } from "vitest";
import { endpointSlice, gatewayAndRoute, service, yamlDocs } from "../support/manifests";
import { cronRun, healthSwitch } from "./active-health";
import { compileYaml } from "./compile";
import { statusPage } from "../../src/worker/status-page";
import { dispatch } from "./dispatch";
import { publishTable } from "./seed-table";

/** This file's own health switch on the shared origins. */
const HEALTH = healthSwitch("cluster-states");

const ports = inject("originPorts");
const CLUSTERS = { east: ports.v1, west: ports.v2, south: ports.v3 };
type Cluster = keyof typeof CLUSTERS;
const ORIGIN: Record<Cluster, string> = { east: "infra-backend-v1", west: "infra-backend-v2", south: "infra-backend-v3" };

/** kedge.yaml with `settings` per cluster (YAML flow fields) and `extra` spec lines. */
function edge(settings: Partial<Record<Cluster, string>> = {}, extra = ""): string {
  const cluster = (name: Cluster, locality: string) =>
    `    - { name: ${name}, locality: ${locality}${settings[name] ? `, ${settings[name]}` : ""} }`;
  return `apiVersion: kedge.dev/v1alpha1
kind: EdgeConfig
metadata: { name: test }
spec:
  gatewayClassName: kedge
  healthChecks: { path: ${HEALTH.path}, timeout: 1s, healthyThreshold: 1, unhealthyThreshold: 1 }
${extra}  clusters:
${cluster("east", "{ continent: NA, countries: [US], colos: [IAD] }")}
${cluster("west", "{ continent: NA, countries: [US], colos: [SFO] }")}
${cluster("south", "{ continent: SA, countries: [BR], colos: [GRU] }")}
`;
}

/** Every cluster's manifests: one route, sticky under /cart, over Service web; its own EndpointSlice. */
const manifests = (cluster: Cluster) =>
  yamlDocs(
    gatewayAndRoute({
      namespace: "shop",
      hostname: "shop.example",
      route: "web",
      rules: `    - matches: [{ path: { type: PathPrefix, value: /cart } }]
      sessionPersistence: { sessionName: cart }
      backendRefs: [{ name: web, port: 8080 }]
    - backendRefs: [{ name: web, port: 8080 }]`,
    }),
    service("web", "shop"),
    endpointSlice({ service: "web", name: `web-${cluster}`, namespace: "shop", port: CLUSTERS[cluster] }),
  );

async function publish(kedgeYaml: string) {
  const { table, diagnostics } = await compileYaml(kedgeYaml, {
    east: manifests("east"),
    west: manifests("west"),
    south: manifests("south"),
  });
  await publishTable(table);
  return { table, diagnostics };
}

interface Answer {
  status: number;
  origin: string;
  cookie: string | null;
}

async function ask(path = "/", init: RequestInit & { cf?: Record<string, string> } = {}): Promise<Answer> {
  const response = await dispatch(new Request(`http://shop.example${path}`, init));
  const body = (await response.json()) as { endpoint?: string; error?: string };
  return { status: response.status, origin: body.endpoint ?? body.error ?? "?", cookie: response.headers.get("set-cookie") };
}

/** The origins that answered `count` requests without a session. */
async function answered(count: number, path = "/", init: RequestInit & { cf?: Record<string, string> } = {}): Promise<string[]> {
  const seen = new Set<string>();
  for (let i = 0; i < count; i++) seen.add((await ask(path, init)).origin);
  return [...seen].sort();
}

afterEach(async () => {
  for (const port of Object.values(CLUSTERS)) await HEALTH.set(port, 200);
  // Every cluster serving and healthy again, as the active view sees it.
  await publish(edge());
  await cronRun();
});

describe("a draining cluster", () => {
  it("takes no new sessions or unpinned requests, while sessions pinned to it keep going there", async ({ expect }) => {
    await publish(edge());
    // A session pinned to west, started while every cluster serves.
    let pinned: Answer | undefined;
    for (let i = 0; i < 60 && !pinned; i++) {
      const answer = await ask("/cart");
      if (answer.origin === ORIGIN.west) pinned = answer;
    }
    expect(pinned?.cookie).toMatch(/^cart=/);
    const cookie = pinned!.cookie!.split(";")[0]!;

    const { table, diagnostics } = await publish(edge({ west: "state: Draining" }));
    expect(table.clusters).toMatchObject({ west: { draining: true } });
    expect(table.clusters?.east).not.toHaveProperty("draining");
    // Its endpoints stay in the table: the pins need them.
    expect(Object.values(table.backends)[0]!.endpoints.map((e) => e.cluster)).toContain("west");
    expect(diagnostics.filter((d) => d.severity === "warning")).toEqual([]);

    expect(await answered(40)).toEqual([ORIGIN.east, ORIGIN.south]);
    const fresh = await Promise.all(Array.from({ length: 20 }, () => ask("/cart")));
    expect(new Set(fresh.map((a) => a.origin))).toEqual(new Set([ORIGIN.east, ORIGIN.south]));
    expect(fresh.every((a) => a.cookie?.startsWith("cart="))).toBe(true);
    for (let i = 0; i < 10; i++) {
      const again = await ask("/cart", { headers: { cookie } });
      expect([again.status, again.origin]).toEqual([200, ORIGIN.west]);
      expect(again.cookie).toBeNull();
    }

    // Once its endpoint fails its health check, the pinned session moves, with a new token.
    await HEALTH.set(ports.v2, 503);
    await cronRun();
    const moved = await ask("/cart", { headers: { cookie } });
    expect([ORIGIN.east, ORIGIN.south]).toContain(moved.origin);
    expect(moved.cookie).toMatch(/^cart=/);
  });

  it("that is the only one left answers new requests 503 and says so at sync; disabled clusters take nothing", async ({ expect }) => {
    const { table, diagnostics } = await publish(edge({ east: "state: Disabled", west: "state: Draining", south: "state: Disabled" }));
    expect(Object.values(table.backends)[0]!.endpoints.map((e) => e.cluster)).toEqual(["west"]);
    expect(diagnostics.find((d) => d.reason === "NoReadyEndpoints")?.message).toContain(
      "has no ready endpoint outside draining clusters (west)",
    );
    const answer = await ask();
    expect(answer.status).toBe(503);
    await publish(edge({ east: "state: Disabled" }));
    expect(await answered(40)).toEqual([ORIGIN.west, ORIGIN.south]);
  });
});

describe("a standby cluster (priority 1)", () => {
  it("takes traffic only while the primaries have no usable endpoint, and none once they recover", async ({ expect }) => {
    const { table } = await publish(edge({ south: "priority: 1" }));
    expect(table.clusters).toMatchObject({ south: { priority: 1 } });
    expect(table.clusters?.east).not.toHaveProperty("priority");
    expect(table.failover).toEqual({ minHealthyEndpoints: 1 });
    expect(await answered(40)).toEqual([ORIGIN.east, ORIGIN.west]);
    // Priority comes before locality: a request from next to the standby still goes to a primary.
    expect(await answered(20, "/", { cf: { colo: "GRU", country: "BR", continent: "SA" } })).toEqual([ORIGIN.east, ORIGIN.west]);

    await HEALTH.set(ports.v1, 503);
    await cronRun();
    expect(await answered(30)).toEqual([ORIGIN.west]);
    await HEALTH.set(ports.v2, 503);
    await cronRun();
    expect(await answered(30)).toEqual([ORIGIN.south]);

    await HEALTH.set(ports.v1, 200);
    await HEALTH.set(ports.v2, 200);
    await cronRun();
    expect(await answered(40)).toEqual([ORIGIN.east, ORIGIN.west]);
  });

  it("joins while the primaries have fewer usable endpoints than failover.minHealthyEndpoints", async ({ expect }) => {
    await publish(edge({ south: "priority: 1" }, "  failover: { minHealthyEndpoints: 2 }\n"));
    expect(await answered(40)).toEqual([ORIGIN.east, ORIGIN.west]);
    await HEALTH.set(ports.v1, 503);
    await cronRun();
    expect(await answered(40)).toEqual([ORIGIN.west, ORIGIN.south]);
  });
});

describe("the status page", () => {
  it("lists each cluster's state, priority and how old a stale snapshot is, serving clusters included", ({ expect }) => {
    const page = statusPage({
      table: { name: "states", version: "v" },
      minutes: 15,
      traffic: [],
      health: null,
      backends: [{ id: "Service/shop/web:80", endpoints: [{ id: "east/10.0.0.1:80", cluster: "east", ready: true, ejected: false }] }],
      clusters: { west: { draining: true }, south: { priority: 1, staleSince: "2026-11-26T10:00:00.000Z" } },
      now: Date.parse("2026-11-26T10:04:10.000Z"),
    });
    expect(page).toContain('data-cluster-state="west" data-draining="true" data-disabled="false" data-priority="0"');
    expect(page).toContain("draining: pinned sessions only");
    expect(page).toContain(
      'data-cluster-state="south" data-draining="false" data-disabled="false" data-priority="1" data-stale-since="2026-11-26T10:00:00.000Z"',
    );
    expect(page).toContain("API unreachable since 2026-11-26T10:00:00.000Z (last snapshot 4m 10s old)");
    expect(page).toMatch(
      /data-cluster-state="east" data-draining="false" data-disabled="false" data-priority="0">\s*<th>east<\/th><td class="good">serving/,
    );
    const quiet = statusPage({
      table: { name: "s", version: "v" },
      minutes: 15,
      traffic: [],
      health: null,
      backends: [],
      clusters: {},
      now: 0,
    });
    expect(quiet).not.toContain("cluster-states");
  });

  it("lists what each cluster contributes, and why one that takes no traffic takes none", ({ expect }) => {
    const page = statusPage({
      table: { name: "accounts", version: "v" },
      minutes: 15,
      traffic: [],
      health: null,
      backends: [],
      clusters: {
        east: { account: { routes: 3, services: 2, endpoints: 6, readyEndpoints: 5 } },
        eu: { account: { routes: 0, services: 0, endpoints: 0, readyEndpoints: 0, idle: "no objects were read from it" } },
      },
      now: 0,
    });
    expect(page).toContain('data-cluster-state="east"');
    expect(page).toContain('data-routes="3" data-services="2" data-endpoints="6" data-ready-endpoints="5">');
    expect(page).toContain(
      'data-routes="0" data-services="0" data-endpoints="0" data-ready-endpoints="0" data-idle="no objects were read from it"',
    );
    expect(page).toContain("no traffic: no objects were read from it");
  });
});
