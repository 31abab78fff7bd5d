/**
 * Multi-cluster backends end to end: three clusters' config folders ▸ the sync CLI ▸ the Worker in
 * workerd ▸ one loopback origin per endpoint, named after its cluster.
 */
import { afterAll, beforeAll, describe, it } from "vitest";
import type { LocalGateway } from "../../scripts/dev/local-gateway";
import type { Origin } from "../../scripts/dev/origin-server";
import { endpointSlice, gatewayAndRoute, service, yamlDocs } from "../support/manifests";
import { startGateway, startOrigins, tally, tearDown, Workspace } from "./harness";

// Capacity: us-east has 2 ready endpoints at weight 1, eu-west 1 at weight 2, ap-southeast 1 at weight 1
// (plus one unready). Expected CompositeBackend shares: 2 : 2 : 1.
const EDGE = `apiVersion: kedge.dev/v1alpha1
kind: EdgeConfig
metadata: { name: mc }
spec:
  gatewayClassName: kedge
  egress: { allowLocalhost: true }
  clusters:
    - { name: us-east, weight: 1 }
    - { name: eu-west, weight: 2 }
    - { name: ap-southeast, weight: 1 }
`;

const GATEWAY = gatewayAndRoute({
  namespace: "shop",
  hostname: "shop.example.com",
  route: "shop",
  rules: `    - matches: [{ path: { type: PathPrefix, value: /local } }]
      backendRefs: [{ name: web, port: 8080 }]
    - matches: [{ path: { type: PathPrefix, value: /partner } }]
      backendRefs: [{ group: gateway.networking.x-k8s.io, kind: XBackend, name: partner }]
    - matches: [{ path: { type: PathPrefix, value: /loop } }]
      backendRefs: [{ group: gateway.networking.k8s.io, kind: CompositeBackend, name: loop, port: 8080 }]
    - matches: [{ path: { type: PathPrefix, value: /ip } }]
      backendRefs: [{ group: gateway.networking.x-k8s.io, kind: XBackend, name: by-ip }]
    - backendRefs: [{ group: gateway.networking.k8s.io, kind: CompositeBackend, name: web, port: 8080 }]`,
});

const xbackend = (name: string, hostname: string, port: number) => `---
apiVersion: gateway.networking.x-k8s.io/v1alpha1
kind: XBackend
metadata: { name: ${name}, namespace: shop }
spec:
  type: ExternalHostname
  externalHostname: { hostname: "${hostname}" }
  port: { port: ${port} }
  tls: { mode: None }
`;

const COMPOSITE = `apiVersion: gateway.networking.k8s.io/v1
kind: CompositeBackend
metadata: { name: web, namespace: shop }
spec: { targetRefs: [{ kind: Service, name: web }] }
`;

/** One EndpointSlice of Service `web` per endpoint (each origin listens on its own loopback port). */
const slices = (endpoints: { port: number; ready: boolean }[]): string =>
  yamlDocs(
    ...endpoints.map((e, i) =>
      endpointSlice({ service: "web", name: `web-${i}`, namespace: "shop", port: e.port, conditions: `{ ready: ${e.ready} }` }),
    ),
  );

const SERVICE = service("web", "shop");

describe("multi-cluster backends: sync ▸ Worker ▸ three clusters' origins", () => {
  const ws = new Workspace();
  const origins: Record<string, Origin> = {};
  let gateway: LocalGateway;
  const port = (name: string) => origins[name]!.port;

  /** Writes the three clusters: ap-southeast's CompositeBackend can be left out, eu-west's endpoint made unready. */
  function writeClusters(options: { apComposite?: boolean; euReady?: boolean } = {}) {
    const { apComposite = true, euReady = true } = options;
    ws.write({
      "kedge.yaml": EDGE,
      "clusters/us-east/app.yaml":
        [
          GATEWAY,
          COMPOSITE,
          SERVICE,
          slices([
            { port: port("us-1"), ready: true },
            { port: port("us-2"), ready: true },
          ]),
        ].join("---\n") + xbackend("partner", "localhost", port("partner")),
      "clusters/eu-west/app.yaml": [COMPOSITE, SERVICE, slices([{ port: port("eu-1"), ready: euReady }])].join("---\n"),
      "clusters/ap-southeast/app.yaml": [
        ...(apComposite ? [COMPOSITE] : []),
        SERVICE,
        slices([
          { port: port("ap-1"), ready: true },
          { port: port("ap-2"), ready: false },
        ]),
      ].join("---\n"),
    });
  }

  async function sync(): Promise<string> {
    const run = await ws.sync();
    if (run.code !== 0) throw new Error(`sync exited ${run.code}: ${run.stderr}${run.stdout}`);
    return run.stdout;
  }

  const share = (counts: Record<string, number>, prefix: string, total: number) =>
    Object.entries(counts)
      .filter(([k]) => k.startsWith(prefix))
      .reduce((n, [, c]) => n + c, 0) / total;

  beforeAll(async () => {
    for (const [cluster, names] of [
      ["us-east", ["us-1", "us-2", "partner"]],
      ["eu-west", ["eu-1"]],
      ["ap-southeast", ["ap-1", "ap-2"]],
    ] as const) {
      Object.assign(origins, await startOrigins([...names], cluster));
    }
    writeClusters();
    await sync();
    gateway = await startGateway(ws.state, "mc");
  });

  afterAll(() => tearDown({ gateway, origins, ws }));

  it("a CompositeBackend reaches all three clusters in proportion to ready endpoints × cluster weight", async ({ expect }) => {
    const total = 500;
    const counts = await tally(gateway, "shop.example.com", "/", total);
    expect(Object.keys(counts).sort()).toEqual(["ap-1", "eu-1", "us-1", "us-2"]);
    expect(share(counts, "us-", total)).toBeGreaterThan(0.32);
    expect(share(counts, "us-", total)).toBeLessThan(0.48);
    expect(share(counts, "eu-", total)).toBeGreaterThan(0.32);
    expect(share(counts, "eu-", total)).toBeLessThan(0.48);
    expect(share(counts, "ap-", total)).toBeGreaterThan(0.13);
    expect(share(counts, "ap-", total)).toBeLessThan(0.27);
  });

  it("reports the aggregate's clusters in each CompositeBackend's status", async ({ expect }) => {
    const dry = await ws.sync("--dry-run", "--json");
    const statuses = (
      JSON.parse(dry.stdout) as { statuses: { object: { kind: string; cluster: string }; aggregate?: { clusters: string[] } }[] }
    ).statuses;
    const composite = statuses.filter((s) => s.object.kind === "CompositeBackend");
    expect(composite.map((s) => s.object.cluster)).toEqual(["us-east", "eu-west", "ap-southeast"]);
    for (const s of composite) expect(s.aggregate?.clusters).toEqual(["us-east", "eu-west", "ap-southeast"]);
  });

  it("a Service backendRef reaches only its own cluster", async ({ expect }) => {
    expect(Object.keys(await tally(gateway, "shop.example.com", "/local", 60)).sort()).toEqual(["us-1", "us-2"]);
  });

  it("an XBackend is reached at its external hostname", async ({ expect }) => {
    const response = await gateway.miniflare.dispatchFetch("http://shop.example.com/partner/quote?id=1");
    expect(response.status).toBe(200);
    const echo = (await response.json()) as { endpoint: string; request: { path: string; query: string; headers: Record<string, string> } };
    expect(echo.endpoint).toBe("partner");
    expect(echo.request).toMatchObject({ path: "/partner/quote", query: "?id=1" });
    expect(echo.request.headers.host).toBe(`localhost:${port("partner")}`);
  });

  it("removing one cluster's CompositeBackend moves its share to the others", async ({ expect }) => {
    writeClusters({ apComposite: false });
    await sync();
    const counts = await tally(gateway, "shop.example.com", "/", 200);
    expect(Object.keys(counts).sort()).toEqual(["eu-1", "us-1", "us-2"]);
    expect(share(counts, "eu-", 200)).toBeGreaterThan(0.38);
    expect(share(counts, "eu-", 200)).toBeLessThan(0.62);
  });

  it("making a cluster's endpoints unready moves its share to the others", async ({ expect }) => {
    writeClusters({ euReady: false });
    await sync();
    const counts = await tally(gateway, "shop.example.com", "/", 150);
    expect(Object.keys(counts).sort()).toEqual(["ap-1", "us-1", "us-2"]);
    writeClusters();
    await sync();
  });

  it("a CompositeBackend targeting a CompositeBackend and an XBackend naming an IP are rejected; the rest serves", async ({ expect }) => {
    ws.write({
      "clusters/eu-west/bad.yaml": `apiVersion: gateway.networking.k8s.io/v1
kind: CompositeBackend
metadata: { name: loop, namespace: shop }
spec: { targetRefs: [{ group: gateway.networking.k8s.io, kind: CompositeBackend, name: web }] }
`,
      "clusters/us-east/bad.yaml": xbackend("by-ip", "127.0.0.1", port("partner")),
    });
    const run = await ws.sync();
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/CompositeBackend shop\/loop {2}Accepted=False InvalidKind/);
    expect(run.stdout).toMatch(
      /CompositeBackend shop\/loop spec\.targetRefs\[0\]\.kind: InvalidKind: a CompositeBackend may not target another/,
    );
    expect(run.stdout).toMatch(/XBackend shop\/by-ip {2}Accepted=False UnsupportedValue/);
    expect(run.stdout).toMatch(
      /XBackend shop\/by-ip spec\.externalHostname\.hostname: UnsupportedValue: hostname 127\.0\.0\.1 must not be an IP address/,
    );
    expect(run.stdout).toMatch(/HTTPRoute shop\/shop spec\.rules\[2\]\.backendRefs\[0\]\.name: BackendNotFound/);

    for (const path of ["/loop", "/ip"]) {
      const response = await gateway.miniflare.dispatchFetch(`http://shop.example.com${path}`);
      expect(response.status, path).toBe(500);
      expect(await response.json()).toMatchObject({ error: "BACKEND_NOT_RESOLVED" });
    }
    expect(Object.keys(await tally(gateway, "shop.example.com", "/", 100)).sort()).toEqual(["ap-1", "eu-1", "us-1", "us-2"]);
    expect((await ws.sync("--strict")).code).toBe(1);
  });
});
