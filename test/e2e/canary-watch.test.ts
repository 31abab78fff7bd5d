/**
 * `kedge sync --watch --canary`: each change the watch pushes goes out as a canary; one the edge reverts is held
 * by the watch exactly as a rollback by hand (it does not push the same version again while the config stays as
 * it is), and the next change goes out as a new canary.
 */
import { afterAll, beforeAll, describe, it } from "vitest";
import type { LocalGateway } from "../../scripts/dev/local-gateway";
import { type Origin, startOrigin } from "../../scripts/dev/origin-server";
import { freePort, startGateway, Workspace } from "./harness";
import { Watcher } from "./watch-process";

const EDGE = `apiVersion: kedge.dev/v1alpha1
kind: EdgeConfig
metadata: { name: watched }
spec:
  gatewayClassName: kedge
  clusters: [{ name: us }]
  rollout: { minRequests: 20 }
`;

const cluster = (port: number) => `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: { name: edge, namespace: shop }
spec: { gatewayClassName: kedge, listeners: [{ name: http, protocol: HTTP, port: 80 }] }
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: { name: web, namespace: shop }
spec: { parentRefs: [{ name: edge }], hostnames: [shop.example.com], rules: [{ backendRefs: [{ name: web, port: 80 }] }] }
---
apiVersion: v1
kind: Service
metadata: { name: web, namespace: shop }
spec: { ports: [{ name: http, port: 80 }] }
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata: { name: web-1, namespace: shop, labels: { kubernetes.io/service-name: web } }
addressType: IPv4
ports: [{ name: http, port: ${port} }]
endpoints: [{ addresses: ["127.0.0.1"], conditions: { ready: true } }]
`;

describe("sync --watch --canary", { timeout: 120_000 }, () => {
  const ws = new Workspace();
  let origin: Origin;
  let other: Origin;
  let gateway: LocalGateway;
  let watcher: Watcher | undefined;

  beforeAll(async () => {
    origin = await startOrigin({ cluster: "us", endpoint: "web", backends: ["shop/web"] });
    other = await startOrigin({ cluster: "us", endpoint: "web-2", backends: ["shop/web"] });
    ws.write({ "kedge.yaml": EDGE, "clusters/us/shop.yaml": cluster(origin.port) });
    const synced = await ws.sync();
    if (synced.code !== 0) throw new Error(`sync failed:\n${synced.stdout}${synced.stderr}`);
    gateway = await startGateway(ws.state, "watched");
  });
  afterAll(async () => {
    watcher?.signal("SIGTERM");
    await watcher?.exited;
    await gateway?.dispose();
    await Promise.all([origin?.close(), other?.close()]);
    ws.remove();
  });

  it("pushes each change as a canary; one the edge reverts is not pushed again until the config changes", async ({ expect }) => {
    watcher = new Watcher(["--config", ws.config, "--persist-to", ws.state, "--debounce", "200ms", "--canary", "50", "-o", "json"]);
    await watcher.next((r) => r.cycle === 1 && r.pushed === false);
    const deadPort = await freePort();
    ws.write({ "clusters/us/shop.yaml": cluster(deadPort) });
    const pushed = await watcher.next((r) => r.pushed === true);
    const canary = String(pushed.table).split("@")[1]!;
    expect(pushed.canary).toMatch(/^50% beside [0-9a-f]{20}$/);
    const status = JSON.parse((await ws.kedge("status", "--json")).stdout) as { canary?: { canary: { version: string } } };
    expect(status.canary?.canary.version).toBe(canary);

    for (let i = 0; i < 80; i++) await gateway.miniflare.dispatchFetch("http://shop.example.com/").then((r) => r.arrayBuffer());
    await gateway.cron.tick();
    // The watch reads the pointer between its cycles: the edge's revert is said once, as a hold.
    const held = await watcher.next((r) => typeof r.held === "string" && String(r.held).includes("reverted by the edge"));
    expect(held.held).toBe(`canary ${canary} reverted by the edge`);

    // The same broken config again (the file written anew): nothing pushed.
    const before = watcher.records.length;
    ws.write({ "clusters/us/shop.yaml": cluster(deadPort) });
    const again = await watcher.next((r) => typeof r.cycle === "number" && r.pushed === false, before);
    expect(again.table).toBe(pushed.table);
    expect((JSON.parse((await ws.kedge("status", "--json")).stdout) as { canary?: unknown }).canary).toBeUndefined();

    // A change that works goes out as a new canary.
    const after = watcher.records.length;
    ws.write({ "clusters/us/shop.yaml": cluster(other.port) });
    const next = await watcher.next((r) => r.pushed === true, after);
    expect(String(next.table).split("@")[1]).not.toBe(canary);
    const running = JSON.parse((await ws.kedge("status", "--json")).stdout) as {
      canary?: { canary: { version: string; percent: number } };
    };
    expect(running.canary?.canary).toMatchObject({ version: String(next.table).split("@")[1], percent: 50 });
  });
});
