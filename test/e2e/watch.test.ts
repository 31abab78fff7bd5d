/**
 * `kedge sync --watch` against two stand-in API servers (test/support/kube-api-stand-in.ts, checked by
 * hand with kubectl) and the real Worker: the clusters' status carries kedge's verdict beside another
 * controller's untouched entry; a watched change reaches the served table with no second command; a
 * cluster whose API goes away keeps serving its last snapshot while the other's change lands, until
 * --stale-after drops its endpoints; it comes back when its API answers; SIGTERM stops the loop cleanly.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, it } from "vitest";
import type { LocalGateway } from "../../scripts/dev/local-gateway";
import { type EchoResponse, type Origin, startOrigin } from "../../scripts/dev/origin-server";
import { KubeStandIn, kubeconfigFor, type StandInResource } from "../support/kube-api-stand-in";
import { httpService, kedgeClass, loopbackSlice, resource } from "../support/stand-in-resources";
import { runScript, startGateway, Workspace } from "./harness";
import { Watcher } from "./watch-process";

const TOKEN = "stand-in-token";
const GW = "gateway.networking.k8s.io";
const OTHER = { controllerName: "example.com/other-gateway", parentRef: { group: GW, kind: "Gateway", namespace: "shop", name: "other" } };

const route = (hostnames: string[], name = "web") => ({
  metadata: { name, namespace: "shop" },
  spec: { parentRefs: [{ name: "gw" }, { name: "other" }], hostnames, rules: [{ backendRefs: [{ name: "web", port: 80 }] }] },
});

function objects(port: number): StandInResource[] {
  return [
    kedgeClass(),
    resource("Gateway", [
      {
        metadata: { name: "gw", namespace: "shop" },
        spec: { gatewayClassName: "kedge", listeners: [{ name: "http", protocol: "HTTP", port: 80, hostname: "*.example.com" }] },
      },
    ]),
    resource("HTTPRoute", [route(["shop.example.com"])]),
    resource("Service", [httpService("shop", "web")]),
    resource("Namespace", [{ metadata: { name: "shop" } }]),
    resource("EndpointSlice", [loopbackSlice("shop", "web", "web-1", port)]),
  ];
}

/** Polls until `test` holds for what `probe` returns; fails after `ms`. */
async function eventually<T>(probe: () => Promise<T>, test: (value: T) => boolean, ms = 15_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (test(value) || Date.now() > until) return value;
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe("sync --watch against live clusters", { timeout: 90_000 }, () => {
  const ws = new Workspace();
  const origins: Record<"east" | "west", Origin> = {} as Record<"east" | "west", Origin>;
  let east: KubeStandIn;
  let west: KubeStandIn;
  let watcher: Watcher;
  let gateway: LocalGateway;

  /** Which clusters answered `count` requests for `host` (and the statuses that were not 200). */
  const answered = async (host: string, count = 20): Promise<string[]> => {
    const seen = new Set<string>();
    for (let i = 0; i < count; i++) {
      const response = await gateway.miniflare.dispatchFetch(`http://${host}/`);
      const text = await response.text();
      seen.add(response.status === 200 ? (JSON.parse(text) as EchoResponse).cluster : `${response.status}`);
    }
    return [...seen].sort();
  };

  beforeAll(async () => {
    origins.east = await startOrigin({ cluster: "east", endpoint: "east-1", backends: ["shop/web"] });
    origins.west = await startOrigin({ cluster: "west", endpoint: "west-1", backends: ["shop/web"] });
    east = await KubeStandIn.start(objects(origins.east.port), { token: TOKEN });
    west = await KubeStandIn.start(objects(origins.west.port), { token: TOKEN });
    // Another controller already wrote its verdict on west's route (its parent `other`).
    west.setStatus("httproutes", "shop", "web", {
      parents: [
        {
          ...OTHER,
          conditions: [
            { type: "Accepted", status: "True", reason: "Accepted", message: "theirs", lastTransitionTime: "2026-11-01T00:00:00Z" },
          ],
        },
      ],
    });
    const kubeconfig = join(ws.dir, "kubeconfig.json");
    writeFileSync(kubeconfig, kubeconfigFor({ "east-admin": east.url, "west-admin": west.url }, TOKEN));
    ws.write({
      "kedge.yaml": `apiVersion: kedge.dev/v1alpha1
kind: EdgeConfig
metadata: { name: watched }
spec:
  gatewayClassName: kedge
  clusters:
    - { name: east, kubeContext: east-admin, kubeconfig: ${JSON.stringify(kubeconfig)} }
    - { name: west, kubeContext: west-admin, kubeconfig: ${JSON.stringify(kubeconfig)} }
`,
    });
    watcher = new Watcher(["--config", ws.config, "--persist-to", ws.state, "--debounce", "150ms", "--stale-after", "4s", "-o", "json"]);
    await watcher.next((r) => r.pushed === true);
    gateway = await startGateway(ws.state, "watched");
  }, 60_000);

  afterAll(async () => {
    watcher.signal("SIGKILL");
    await gateway?.dispose();
    await Promise.all([east?.close(), west?.close(), origins.east?.close(), origins.west?.close()]);
    ws.remove();
  });

  it("serves both clusters, and writes kedge's verdict into each beside another controller's entry", async ({ expect }) => {
    expect(await answered("shop.example.com")).toEqual(["east", "west"]);
    const status = (s: KubeStandIn) => s.object("httproutes", "shop", "web")?.status as { parents: Record<string, unknown>[] } | undefined;
    const westParents = (await eventually(
      async () => status(west),
      (s) => (s?.parents.length ?? 0) > 1,
    ))!.parents;
    expect(westParents[0]).toEqual({ ...OTHER, conditions: [expect.objectContaining({ message: "theirs" })] });
    const ours = westParents.filter((p) => p.controllerName === "kedge.dev/edge");
    // An entry for the parentRef that is kedge's (`gw`); `other` is another implementation's, not kedge's to write.
    expect(ours.map((p) => (p.parentRef as { name: string }).name)).toEqual(["gw"]);
    expect(ours[0]!.conditions).toEqual([
      expect.objectContaining({ type: "Accepted", status: "True", observedGeneration: 1 }),
      expect.objectContaining({ type: "ResolvedRefs", status: "True", observedGeneration: 1 }),
    ]);
    expect(status(east)!.parents.every((p) => p.controllerName === "kedge.dev/edge")).toBe(true);
    const gatewayStatus = east.object("gateways", "shop", "gw")?.status as Record<string, unknown>;
    expect(gatewayStatus.conditions).toEqual([
      expect.objectContaining({ type: "Accepted", status: "True" }),
      expect.objectContaining({ type: "Programmed", status: "True" }),
    ]);
    expect(gatewayStatus.listeners).toEqual([expect.objectContaining({ name: "http", attachedRoutes: 1 })]);
    const classStatus = east.object("gatewayclasses", "", "kedge")?.status as {
      conditions: { type: string }[];
      supportedFeatures: { name: string }[];
    };
    expect(classStatus.conditions.map((c) => c.type)).toContain("Accepted");
    expect(classStatus.supportedFeatures.map((f) => f.name)).toContain("HTTPRoute");
    // Every write named the resourceVersion it merged over (a precondition), and an unchanged status is not written again.
    expect(east.statusWrites.every((w) => typeof (w.body.metadata as { resourceVersion?: string }).resourceVersion === "string")).toBe(
      true,
    );
  });

  it("a change in a cluster reaches the served table with no second command, and its status follows", async ({ expect }) => {
    let from = watcher.records.length;
    east.apply("httproutes", route(["new.example.com"], "extra"));
    await watcher.next((r) => r.pushed === true, from);
    expect(
      await eventually(
        () => answered("new.example.com", 10),
        (seen) => seen.includes("east"),
      ),
    ).toEqual(["east"]);
    const generationSeen = () =>
      (east.object("httproutes", "shop", "extra")?.status as { parents?: { conditions: { observedGeneration: number }[] }[] } | undefined)
        ?.parents?.[0]?.conditions[0]?.observedGeneration;
    expect(
      await eventually(
        async () => generationSeen(),
        (g) => g === 1,
      ),
    ).toBe(1);
    from = watcher.records.length;
    east.apply("httproutes", route(["new.example.com", "newer.example.com"], "extra"));
    await watcher.next((r) => r.pushed === true, from);
    expect(
      await eventually(
        async () => generationSeen(),
        (g) => g === 2,
      ),
    ).toBe(2);
    expect(await answered("newer.example.com", 5)).toEqual(["east"]);
  });

  it("a cluster whose API goes away keeps its last snapshot while the other's change lands; past --stale-after its endpoints go; back when it answers", async ({
    expect,
  }) => {
    let from = watcher.records.length;
    await west.stop();
    east.apply("httproutes", route(["later.example.com"], "later"));
    const landed = await watcher.next((r) => r.pushed === true && typeof r.stale === "string" && r.stale.startsWith("west("), from);
    expect(landed.dropped).toBeUndefined();
    expect(
      await eventually(
        () => answered("later.example.com", 10),
        (seen) => seen.includes("east"),
      ),
    ).toEqual(["east"]);
    // West's endpoint, from its last snapshot, still serves its share.
    expect(await answered("shop.example.com")).toEqual(["east", "west"]);
    const status = await runScript("scripts/cli/main.ts", ["status", "--config", ws.config, "--persist-to", ws.state]);
    expect(status.stdout).toMatch(
      /cluster west: 1 of 1 endpoint ready; 1 route, 1 Service; API unreachable since \S+ \(snapshot 0 min old\)/,
    );

    from = watcher.records.length;
    const dropped = await watcher.next((r) => r.dropped === "west", from, 15_000);
    expect(dropped.pushed).toBe(true);
    expect(
      await eventually(
        () => answered("shop.example.com"),
        (seen) => seen.join() === "east",
      ),
    ).toEqual(["east"]);

    from = watcher.records.length;
    await west.restart();
    await watcher.next((r) => r.pushed === true && r.stale === undefined, from, 40_000);
    expect(
      await eventually(
        () => answered("shop.example.com"),
        (seen) => seen.includes("west"),
      ),
    ).toEqual(["east", "west"]);
  });

  it("stops on SIGTERM, exit 0", async ({ expect }) => {
    watcher.signal("SIGTERM");
    expect(await watcher.exited).toBe(0);
    expect(watcher.records.at(-1)).toMatchObject({ signal: "SIGTERM" });
  });
});
