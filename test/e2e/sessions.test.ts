/**
 * Session persistence end to end: config with a BackendLBPolicy and rule-level sessionPersistence ▸
 * the sync CLI ▸ the Worker and its SessionStore Durable Objects in workerd, state on disk ▸ origins.
 */
import { afterAll, beforeAll, describe, it } from "vitest";
import type { LocalGateway } from "../../scripts/dev/local-gateway";
import type { EchoResponse, Origin } from "../../scripts/dev/origin-server";
import { endpointSlice, gatewayAndRoute, service, yamlDocs } from "../support/manifests";
import { startGateway, startOrigins, tearDown, Workspace } from "./harness";

const EDGE = `apiVersion: kedge.dev/v1alpha1
kind: EdgeConfig
metadata: { name: sessions }
spec:
  gatewayClassName: kedge
  clusters: [{ name: east }, { name: west }]
`;

const COMPOSITE = `apiVersion: gateway.networking.k8s.io/v1
kind: CompositeBackend
metadata: { name: cart, namespace: shop }
spec: { targetRefs: [{ kind: Service, name: cart }] }
`;

/** Service `name` with one slice per listed origin. */
const backend = (name: string, ports: Record<string, number>, origins: string[]) =>
  yamlDocs(service(name, "shop"), ...origins.map((o) => endpointSlice({ service: name, name: o, namespace: "shop", port: ports[o]! })));

function east(ports: Record<string, number>, weights: [number, number]): string {
  const routes = gatewayAndRoute({
    namespace: "shop",
    hostname: "shop.example.com",
    route: "shop",
    rules: `    - matches: [{ path: { type: PathPrefix, value: /cart } }]
      backendRefs: [{ group: gateway.networking.k8s.io, kind: CompositeBackend, name: cart, port: 8080 }]
    - matches: [{ path: { type: PathPrefix, value: /checkout } }]
      sessionPersistence: { sessionName: checkout, type: Cookie }
      backendRefs:
        - { name: v1, port: 8080, weight: ${weights[0]} }
        - { name: v2, port: 8080, weight: ${weights[1]} }`,
  });
  // The cart's owner wants sticky carts, whichever route uses the backend (GEP-1282).
  const policy = `apiVersion: gateway.networking.k8s.io/v1alpha2
kind: BackendLBPolicy
metadata: { name: sticky-cart, namespace: shop }
spec:
  targetRefs: [{ group: gateway.networking.k8s.io, kind: CompositeBackend, name: cart }]
  sessionPersistence: { sessionName: cart, type: Cookie }
`;
  return yamlDocs(
    routes,
    policy,
    COMPOSITE,
    backend("cart", ports, ["cart-e1", "cart-e2"]),
    backend("v1", ports, ["v1"]),
    backend("v2", ports, ["v2"]),
  );
}

const west = (ports: Record<string, number>) => yamlDocs(COMPOSITE, backend("cart", ports, ["cart-w1"]));

describe("session persistence: sync ▸ Worker ▸ SessionStore ▸ origins", () => {
  const ws = new Workspace();
  const origins: Record<string, Origin> = {};
  let ports: Record<string, number>;
  let gateway: LocalGateway;

  async function ask(path: string, cookie?: string): Promise<{ endpoint: string; setCookie: string | null }> {
    const response = await gateway.miniflare.dispatchFetch(`http://shop.example.com${path}`, { headers: cookie ? { cookie } : {} });
    const body = (await response.json()) as EchoResponse;
    return { endpoint: body.endpoint, setCookie: response.headers.get("set-cookie") };
  }

  async function sync(weights: [number, number]) {
    ws.write({ "kedge.yaml": EDGE, "clusters/east/app.yaml": east(ports, weights), "clusters/west/app.yaml": west(ports) });
    const run = await ws.sync();
    if (run.code !== 0) throw new Error(`sync exited ${run.code}: ${run.stderr}${run.stdout}`);
    return run;
  }

  beforeAll(async () => {
    Object.assign(origins, await startOrigins(["cart-e1", "cart-e2", "v1", "v2"], "east"), await startOrigins(["cart-w1"], "west"));
    ports = Object.fromEntries(Object.entries(origins).map(([name, o]) => [name, o.port]));
    await sync([70, 30]);
    gateway = await startGateway(ws.state, "sessions");
  });

  afterAll(() => tearDown({ gateway, origins, ws }));

  it("a policy on a CompositeBackend pins a client to one endpoint of the union for 50 requests", async ({ expect }) => {
    const first = await ask("/cart");
    expect(first.setCookie).toMatch(/^cart=[^;]+; Path=\/; HttpOnly; SameSite=Strict$/);
    const cookie = first.setCookie!.split(";")[0]!;
    const seen = new Set<string>();
    for (let i = 0; i < 50; i++) seen.add((await ask("/cart", cookie)).endpoint);
    expect([...seen]).toEqual([first.endpoint]);
    // Without the cookie, the union's three endpoints share the traffic.
    const spread = new Set<string>();
    for (let i = 0; i < 60; i++) spread.add((await ask("/cart")).endpoint);
    expect([...spread].sort()).toEqual(["cart-e1", "cart-e2", "cart-w1"]);
  });

  it("70/30 without a token; a client pinned to v2 stays there after v2's weight is synced to 0", async ({ expect }) => {
    let v1 = 0;
    let pinned: string | undefined;
    for (let i = 0; i < 200; i++) {
      const answer = await ask("/checkout");
      if (answer.endpoint === "v1") v1++;
      else pinned ??= answer.setCookie?.split(";")[0];
    }
    expect(v1 / 200).toBeGreaterThan(0.6);
    expect(v1 / 200).toBeLessThan(0.8);
    expect(pinned).toBeDefined();

    const resync = await sync([100, 0]);
    expect(resync.stdout).toMatch(/wrote table sessions@/);
    for (let i = 0; i < 20; i++) expect(await ask("/checkout", pinned)).toEqual({ endpoint: "v2", setCookie: null });
    for (let i = 0; i < 20; i++) expect((await ask("/checkout")).endpoint).toBe("v1");
  });

  it("sessions survive a restart of the local runtime", async ({ expect }) => {
    const first = await ask("/cart");
    const cookie = first.setCookie!.split(";")[0]!;
    await gateway.dispose();
    gateway = await startGateway(ws.state, "sessions");
    for (let i = 0; i < 10; i++) expect(await ask("/cart", cookie)).toEqual({ endpoint: first.endpoint, setCookie: null });
  });
});
