/**
 * The watch of one live cluster and the `sync --watch` loop, in-process against stand-in API servers (no
 * Worker): what a stream cut mid-event, an ERROR event, an overloaded server and a status-only change do
 * to the snapshot; that a cluster down when the loop starts is waited for (never pushed without its
 * objects), then left out past --stale-after, then listed again when it answers; and that a route that
 * leaves kedge's Gateways loses kedge's status entry; and that changes to Services no route names (a big
 * cluster's churn) compile nothing, while a routed endpoint's change is pushed.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, it } from "vitest";
import { ClusterWatch } from "../../scripts/kube/cluster-watch";
import type { StoreOpenedAhead } from "../../scripts/store/open-store";
import { readCurrentTable } from "../support/current-table";
import { WatchLoop } from "../../scripts/watch/watch-loop";
import type { ClusterSettings } from "../../src/compile/input/edge-config";
import { KubeStandIn, kubeconfigFor, type StandInResource } from "../support/kube-api-stand-in";
import { MemoryKv } from "../support/memory-kv";
import { httpService, kedgeClass, loopbackSlice, resource } from "../support/stand-in-resources";

const TOKEN = "t";

function objects(port: number, host: string): StandInResource[] {
  return [
    kedgeClass(),
    resource("Gateway", [
      {
        metadata: { name: "gw", namespace: "shop" },
        spec: { gatewayClassName: "kedge", listeners: [{ name: "http", protocol: "HTTP", port: 80 }] },
      },
    ]),
    // Named after its host: routes of one name that differ between clusters would not merge.
    resource("HTTPRoute", [
      {
        metadata: { name: host.split(".")[0], namespace: "shop" },
        spec: { parentRefs: [{ name: "gw" }], hostnames: [host], rules: [{ backendRefs: [{ name: "web", port: 80 }] }] },
      },
    ]),
    resource("Service", [httpService("shop", "web")]),
    resource("EndpointSlice", [loopbackSlice("shop", "web", "web-1", port)]),
  ];
}

const started: KubeStandIn[] = [];
const stops: (() => unknown)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
  await Promise.all(started.splice(0).map((s) => s.close()));
});

const dir = mkdtempSync(join(tmpdir(), "kedge-watch-"));

async function standIn(port: number, host: string): Promise<KubeStandIn> {
  const s = await KubeStandIn.start(objects(port, host), { token: TOKEN });
  started.push(s);
  return s;
}

function cluster(name: string, s: KubeStandIn): ClusterSettings {
  const kubeconfig = join(dir, `${name}.json`);
  writeFileSync(kubeconfig, kubeconfigFor({ [name]: s.url }, TOKEN));
  return {
    name,
    kubeContext: name,
    kubeconfig,
    weight: 1,
    state: "Serving",
    priority: 0,
    endpoints: { from: "EndpointSlice", scheme: "http" },
  };
}

/** Resolves once `test` holds, polling; fails after `ms`. */
async function until(test: () => boolean, ms = 8000, what = "the condition"): Promise<void> {
  const end = Date.now() + ms;
  while (!test()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe("the watch of one cluster", { timeout: 30_000 }, () => {
  it("survives a stream cut mid-event and ERROR events, and takes an overloaded server for stale, not fatal", async ({ expect }) => {
    const s = await standIn(9001, "a.example");
    const changes: string[] = [];
    const failures: Error[] = [];
    const w = new ClusterWatch(cluster("east", s), (why) => changes.push(why));
    stops.push(() => w.stop());
    w.start((e) => failures.push(e));
    await until(() => w.listed, 8000, "the first listing");
    const routes = () =>
      w
        .objects()
        .manifests.filter((m) => m.kind === "HTTPRoute")
        .map((m) => m.metadata.name);
    s.cutWatches();
    s.apply("httproutes", { metadata: { name: "second", namespace: "shop" }, spec: { parentRefs: [{ name: "gw" }] } });
    await until(() => routes().includes("second"), 8000, "the route applied after the cut");
    s.errorWatches();
    s.apply("httproutes", { metadata: { name: "third", namespace: "shop" }, spec: { parentRefs: [{ name: "gw" }] } });
    await until(() => routes().includes("third"), 8000, "the route applied after the ERROR event");
    // 503 on everything until the watch takes the cluster for stale (a count of failures could be spent by
    // watches reopening, each then checked by a GET that passes): the snapshot is kept; then it answers again.
    s.failing = { status: 503, count: Number.POSITIVE_INFINITY };
    s.errorWatches();
    await until(() => w.staleSince !== null, 8000, "staleness");
    expect(routes().sort()).toEqual(["a", "second", "third"]);
    s.failing = undefined;
    await until(() => w.staleSince === null, 15_000, "the cluster answering again");
    expect(failures).toEqual([]);
  });

  it("counts a Service's status as a change, and an HTTPRoute's status (kedge's own writes) as none", async ({ expect }) => {
    const s = await standIn(9001, "a.example");
    const changes: string[] = [];
    const w = new ClusterWatch(cluster("east", s), (why) => changes.push(why));
    stops.push(() => w.stop());
    w.start(() => undefined);
    await until(() => w.listed);
    const before = changes.length;
    s.setStatus("httproutes", "shop", "a", { parents: [] });
    s.setStatus("services", "shop", "web", { loadBalancer: { ingress: [{ hostname: "web.lb.example" }] } });
    await until(() => changes.length > before);
    await new Promise((r) => setTimeout(r, 200));
    expect(changes.slice(before)).toEqual(["cluster east: Service shop/web modified"]);
  });
});

describe("sync --watch, in-process", { timeout: 30_000 }, () => {
  it("waits for a cluster down at the start, leaves it out past --stale-after, and lists it again when it answers", async ({ expect }) => {
    const east = await standIn(9001, "east.example");
    const west = await standIn(9002, "west.example");
    await west.stop();
    const config = mkdtempSync(join(dir, "config-"));
    const clusters = [cluster("east", east), cluster("west", west)];
    writeFileSync(
      join(config, "kedge.yaml"),
      `apiVersion: kedge.dev/v1alpha1\nkind: EdgeConfig\nmetadata: { name: watched }\nspec:\n  gatewayClassName: kedge\n  clusters:\n${clusters.map((c) => `    - { name: ${c.name}, kubeContext: ${c.kubeContext}, kubeconfig: ${JSON.stringify(c.kubeconfig)} }`).join("\n")}\n`,
    );
    const kv = new MemoryKv();
    const store = { use: <T>(fn: (kv: MemoryKv) => Promise<T>) => fn(kv) } as unknown as StoreOpenedAhead;
    const records: Record<string, unknown>[] = [];
    const loop = new WatchLoop(
      {
        configDir: config,
        where: { target: "local", persistTo: join(dir, "state"), wranglerConfig: "wrangler.toml" },
        checks: { strict: false, shardBytes: 1 << 20 },
        force: false,
        debounceMs: 50,
        staleAfterMs: 1500,
        writeStatus: true,
      },
      store,
      { note: () => undefined, record: (r) => records.push(r) },
    );
    const running = loop.run([]);
    stops.push(() => loop.stop());
    await until(() => records.some((r) => r.waiting === "west"), 8000, "a waiting record");
    expect(records.some((r) => r.pushed === true)).toBe(false);
    await until(() => records.some((r) => r.pushed === true), 8000, "the push past the bound");
    const firstPush = records.find((r) => r.pushed === true)!;
    expect(firstPush).toMatchObject({ dropped: "west" });
    const hosts = async () => Object.keys((await readCurrentTable(kv, "watched"))?.hosts.HTTP?.exact ?? {}).sort();
    expect(await hosts()).toEqual(["east.example"]);
    await west.restart();
    await until(() => records.some((r) => r.pushed === true && r.stale === undefined), 15_000, "a push with west back");
    expect(await hosts(), JSON.stringify(records)).toEqual(["east.example", "west.example"]);
    await loop.stop();
    await running;
  });

  it("takes kedge's status entry off a route that left kedge's Gateways", async ({ expect }) => {
    const east = await standIn(9001, "east.example");
    const config = mkdtempSync(join(dir, "config-"));
    const c = cluster("east", east);
    writeFileSync(
      join(config, "kedge.yaml"),
      `apiVersion: kedge.dev/v1alpha1\nkind: EdgeConfig\nmetadata: { name: moved }\nspec:\n  gatewayClassName: kedge\n  clusters: [{ name: east, kubeContext: east, kubeconfig: ${JSON.stringify(c.kubeconfig)} }]\n`,
    );
    const kv = new MemoryKv();
    const store = { use: <T>(fn: (kv: MemoryKv) => Promise<T>) => fn(kv) } as unknown as StoreOpenedAhead;
    const records: Record<string, unknown>[] = [];
    const settings = {
      configDir: config,
      where: { target: "local" as const, persistTo: join(dir, "state"), wranglerConfig: "wrangler.toml" },
      checks: { strict: false, shardBytes: 1 << 20 },
      force: true,
      debounceMs: 50,
      staleAfterMs: 60_000,
      writeStatus: true,
    };
    const loop = new WatchLoop(settings, store, { note: () => undefined, record: (r) => records.push(r) });
    const running = loop.run([]);
    stops.push(() => loop.stop());
    const parents = () =>
      ((east.object("httproutes", "shop", "east")?.status as { parents?: { controllerName: string }[] } | undefined)?.parents ?? []).map(
        (p) => p.controllerName,
      );
    await until(() => parents().includes("kedge.dev/edge"), 8000, "kedge's entry");
    // The route moves to another implementation's Gateway, which keeps its own entry.
    east.apply("gateways", {
      metadata: { name: "istio", namespace: "shop" },
      spec: { gatewayClassName: "istio", listeners: [{ name: "http", protocol: "HTTP", port: 80 }] },
    });
    east.apply("httproutes", {
      metadata: { name: "east", namespace: "shop" },
      spec: { parentRefs: [{ name: "istio" }], rules: [{ backendRefs: [{ name: "web", port: 80 }] }] },
    });
    east.setStatus("httproutes", "shop", "east", {
      parents: [
        ...((east.object("httproutes", "shop", "east")?.status as { parents?: unknown[] } | undefined)?.parents ?? []),
        { controllerName: "istio.io/gateway-controller", parentRef: { name: "istio" }, conditions: [] },
      ],
    });
    await until(() => !parents().includes("kedge.dev/edge"), 8000, "kedge's entry withdrawn");
    expect(parents()).toEqual(["istio.io/gateway-controller"]);
    await loop.stop();
    await running;
  });

  it("compiles nothing for changes to Services no route names, and pushes a routed endpoint's change", async ({ expect }) => {
    const east = await standIn(9001, "east.example");
    const config = mkdtempSync(join(dir, "config-"));
    const c = cluster("east", east);
    writeFileSync(
      join(config, "kedge.yaml"),
      `apiVersion: kedge.dev/v1alpha1\nkind: EdgeConfig\nmetadata: { name: churn }\nspec:\n  gatewayClassName: kedge\n  clusters: [{ name: east, kubeContext: east, kubeconfig: ${JSON.stringify(c.kubeconfig)} }]\n`,
    );
    const kv = new MemoryKv();
    const store = { use: <T>(fn: (kv: MemoryKv) => Promise<T>) => fn(kv) } as unknown as StoreOpenedAhead;
    const records: Record<string, unknown>[] = [];
    const settings = {
      configDir: config,
      where: { target: "local" as const, persistTo: join(dir, "state"), wranglerConfig: "wrangler.toml" },
      checks: { strict: false, shardBytes: 1 << 20 },
      force: false,
      debounceMs: 50,
      staleAfterMs: 60_000,
      writeStatus: true,
    };
    const loop = new WatchLoop(settings, store, { note: () => undefined, record: (r) => records.push(r) });
    const running = loop.run([]);
    stops.push(() => loop.stop());
    await until(() => records.some((r) => r.pushed === true), 8000, "the first push");
    const compiledSoFar = () => records.filter((r) => r.table !== undefined).length;
    const compiled = compiledSoFar();

    // Another team's Services come and go: their objects change nothing at the edge.
    for (let i = 0; i < 20; i++) {
      east.apply("services", httpService("billing", `ledger-${i}`));
      east.apply("endpointslices", loopbackSlice("billing", `ledger-${i}`, `ledger-${i}-a`, 9100 + i));
    }
    east.remove("endpointslices", "billing", "ledger-0-a");
    await until(() => records.some((r) => r.compiled === false), 8000, "a cycle passed over");
    await new Promise((r) => setTimeout(r, 300));
    expect(compiledSoFar(), JSON.stringify(records.slice(-3))).toBe(compiled);
    expect(records.at(-1)).toMatchObject({ compiled: false, note: expect.stringMatching(/changes? to Services no route reaches/) });
    // A new Service beside the routed one: a route's unresolved reference would name it (did-you-mean), so it counts.
    east.apply("services", httpService("shop", "web-v2"));
    await until(() => compiledSoFar() === compiled + 1, 8000, "a compile for a Service in a routed namespace");

    // The routed Service's endpoint moves: compiled and pushed.
    east.apply("endpointslices", loopbackSlice("shop", "web", "web-1", 9009));
    await until(() => records.filter((r) => r.pushed === true).length === 2, 8000, "the endpoint's push");
    const table = await readCurrentTable(kv, "churn");
    expect(JSON.stringify(table?.backends)).toContain("127.0.0.1:9009");
    // A Service a route names that did not exist: counted too (the route's backend now resolves).
    east.apply("httproutes", {
      metadata: { name: "east", namespace: "shop" },
      spec: { parentRefs: [{ name: "gw" }], hostnames: ["east.example"], rules: [{ backendRefs: [{ name: "late", port: 80 }] }] },
    });
    await until(() => records.filter((r) => r.pushed === true).length === 3, 8000, "the route's push");
    east.apply("services", httpService("shop", "late"));
    east.apply("endpointslices", loopbackSlice("shop", "late", "late-1", 9010));
    await until(() => records.filter((r) => r.pushed === true).length === 4, 8000, "the late Service's push");
    expect(JSON.stringify((await readCurrentTable(kv, "churn"))?.backends)).toContain("127.0.0.1:9010");
    await loop.stop();
    await running;
  });
});
