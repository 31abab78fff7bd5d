/**
 * `kedge sync --watch --leader-elect` as two replicas (real child processes of the CLI) against two stand-in
 * API servers (the first keeps the Lease), one local KV and the real Worker: exactly one leads (the Lease's
 * holder and the gauges on /metrics say which); a change is published once, by the leader; the leader
 * SIGKILLed, the other leads within the lease duration and publishes; a SIGTERM releases the Lease and a
 * third replica takes over at its next try; /healthz, /readyz and /metrics answer as documented, /healthz
 * failing for a cluster stuck failing past --stale-after.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, it } from "vitest";
import type { LocalGateway } from "../../scripts/dev/local-gateway";
import { type EchoResponse, type Origin, startOrigin } from "../../scripts/dev/origin-server";
import { KubeStandIn, kubeconfigFor, type StandInResource } from "../support/kube-api-stand-in";
import { httpService, kedgeClass, loopbackSlice, resource } from "../support/stand-in-resources";
import { freePort, startGateway, Workspace } from "./harness";
import { Watcher } from "./watch-process";

const TOKEN = "stand-in-token";
const LEASE = "kedge-elected";
/** Short timings (client-go's defaults are 15s, 10s, 2s): followers take over within about 4 s. */
const TIMINGS = ["--leader-elect-lease-duration", "4s", "--leader-elect-renew-deadline", "3s", "--leader-elect-retry-period", "500ms"];

const route = (name: string, host: string) => ({
  metadata: { name, namespace: "shop" },
  spec: { parentRefs: [{ name: "gw" }], hostnames: [host], rules: [{ backendRefs: [{ name: "web", port: 80 }] }] },
});

function objects(port: number, withNamespace: boolean): StandInResource[] {
  return [
    kedgeClass(),
    resource("Gateway", [
      {
        metadata: { name: "gw", namespace: "shop" },
        spec: { gatewayClassName: "kedge", listeners: [{ name: "http", protocol: "HTTP", port: 80, hostname: "*.example.com" }] },
      },
    ]),
    resource("HTTPRoute", [route("web", "shop.example.com")]),
    resource("Service", [httpService("shop", "web")]),
    resource("Namespace", [{ metadata: { name: "shop" } }, ...(withNamespace ? [{ metadata: { name: "kedge-system" } }] : [])]),
    resource("EndpointSlice", [loopbackSlice("shop", "web", "web-1", port)]),
  ];
}

/** Polls until `test` holds for what `probe` returns; the last value either way. */
async function eventually<T>(probe: () => Promise<T>, test: (value: T) => boolean, ms = 15_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (test(value) || Date.now() > until) return value;
    await new Promise((r) => setTimeout(r, 150));
  }
}

interface Replica {
  name: string;
  watcher: Watcher;
  metrics: number;
  probes: number;
}

async function get(port: number, path: string): Promise<{ status: number; body: string }> {
  try {
    const response = await fetch(`http://127.0.0.1:${port}${path}`);
    return { status: response.status, body: await response.text() };
  } catch {
    return { status: 0, body: "" };
  }
}

/** A sample's value on /metrics: `name{labels}` with every label given. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split("\n")) {
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const has = Object.entries(labels).every(([k, v]) => (m[2] ?? "").includes(`${k}="${v}"`));
    if (has) return Number(m[3]);
  }
  return undefined;
}

describe("two replicas of sync --watch --leader-elect", { timeout: 120_000 }, () => {
  const ws = new Workspace();
  let origin: Origin;
  let east: KubeStandIn;
  let west: KubeStandIn;
  let gateway: LocalGateway;
  const replicas: Replica[] = [];

  const start = async (name: string): Promise<Replica> => {
    const [metrics, probes] = [await freePort(), await freePort()];
    const watcher = new Watcher(
      [
        ...["--config", ws.config, "--persist-to", ws.state, "--debounce", "150ms", "--stale-after", "5s", "-o", "json"],
        ...["--leader-elect", ...TIMINGS],
        ...["--metrics-bind-address", `127.0.0.1:${metrics}`, "--health-probe-bind-address", `127.0.0.1:${probes}`],
      ],
      { POD_NAME: name },
    );
    const replica = { name, watcher, metrics, probes };
    replicas.push(replica);
    return replica;
  };
  const holder = () => (east.object("leases", "kedge-system", LEASE)?.spec as { holderIdentity?: string } | undefined)?.holderIdentity;
  const lease = () => east.object("leases", "kedge-system", LEASE)?.spec as Record<string, unknown>;
  const leaderOf = (rs: Replica[]) => rs.find((r) => r.watcher.records.some((x) => x.election === "started leading"));
  const served = async (host: string): Promise<string> => {
    const response = await gateway.miniflare.dispatchFetch(`http://${host}/`);
    const text = await response.text();
    return response.status === 200 ? (JSON.parse(text) as EchoResponse).cluster : `${response.status}`;
  };
  const history = () => ws.kedge("history", "--json").then((r) => (JSON.parse(r.stdout) as { history: unknown[] }).history.length);

  beforeAll(async () => {
    origin = await startOrigin({ cluster: "east", endpoint: "east-1", backends: ["shop/web"] });
    east = await KubeStandIn.start(objects(origin.port, true), { token: TOKEN, bookmarkMs: 1000, strictNamespaces: true });
    west = await KubeStandIn.start(objects(origin.port, false), { token: TOKEN, bookmarkMs: 1000 });
    const kubeconfig = join(ws.dir, "kubeconfig.json");
    writeFileSync(kubeconfig, kubeconfigFor({ "east-admin": east.url, "west-admin": west.url }, TOKEN));
    ws.write({
      "kedge.yaml": `apiVersion: kedge.dev/v1alpha1
kind: EdgeConfig
metadata: { name: elected }
spec:
  gatewayClassName: kedge
  clusters:
    - { name: east, kubeContext: east-admin, kubeconfig: ${JSON.stringify(kubeconfig)} }
    - { name: west, kubeContext: west-admin, kubeconfig: ${JSON.stringify(kubeconfig)} }
`,
    });
    const [a, b] = [await start("kedge-a"), await start("kedge-b")];
    await Promise.any([a, b].map((r) => r.watcher.next((x) => x.pushed === true, 0, 60_000)));
    gateway = await startGateway(ws.state, "elected");
  }, 90_000);

  afterAll(async () => {
    for (const r of replicas) r.watcher.signal("SIGKILL");
    await gateway?.dispose();
    await Promise.all([east?.close(), west?.close(), origin?.close()]);
    ws.remove();
  });

  it("exactly one leads: the Lease names it, its gauge is 1 and the other's 0; both are ready and healthy", async ({ expect }) => {
    const [a, b] = replicas as [Replica, Replica];
    const leader = leaderOf([a, b])!;
    const follower = leader === a ? b : a;
    expect(holder()).toBe(leader.name);
    expect(lease()).toMatchObject({ leaseDurationSeconds: 4 });
    expect(follower.watcher.records.some((x) => x.election === "started leading")).toBe(false);
    const gauge = async (r: Replica) => sample((await get(r.metrics, "/metrics")).body, "leader_election_master_status", { name: LEASE });
    expect(await gauge(leader)).toBe(1);
    expect(await gauge(follower)).toBe(0);
    // The follower compiles every cycle (warm) but neither pushes nor writes status.
    await follower.watcher.next((x) => x.leading === false && typeof x.table === "string");
    expect(follower.watcher.records.some((x) => x.pushed === true)).toBe(false);
    for (const r of [leader, follower]) {
      expect(
        await eventually(
          () => get(r.probes, "/readyz"),
          (x) => x.status === 200,
        ),
      ).toEqual({ status: 200, body: "ok\n" });
      expect(await get(r.probes, "/healthz")).toEqual({ status: 200, body: "ok\n" });
    }
    expect(await served("shop.example.com")).toBe("east");
  });

  it("/metrics has the watches' age and staleness, the objects per kind, pushes, the compile and status writes", async ({ expect }) => {
    const leader = leaderOf(replicas)!;
    const text = (await get(leader.metrics, "/metrics")).body;
    expect(sample(text, "kedge_cluster_objects", { cluster: "east", kind: "HTTPRoute" })).toBe(1);
    expect(sample(text, "kedge_cluster_objects", { cluster: "west", kind: "EndpointSlice" })).toBe(1);
    expect(sample(text, "kedge_cluster_stale_seconds", { cluster: "west" })).toBe(0);
    expect(sample(text, "kedge_cluster_watch_event_age_seconds", { cluster: "east" })).toBeLessThan(60);
    expect(sample(text, "kedge_pushes_total", { result: "pushed" })).toBeGreaterThanOrEqual(1);
    expect(sample(text, "kedge_pushes_total", { result: "failed" })).toBe(0);
    expect(sample(text, "kedge_last_successful_push_timestamp_seconds")).toBeGreaterThan(Date.now() / 1000 - 600);
    expect(sample(text, "kedge_compile_diagnostics", { severity: "error" })).toBe(0);
    expect(sample(text, "kedge_status_writes_total", { cluster: "east", result: "written" })).toBeGreaterThan(0);
    expect(text).toContain("# TYPE kedge_pushes_total counter");
    expect(text).toContain("# HELP kedge_cluster_stale_seconds ");
    expect(text).toMatch(/^process_cpu_seconds_total /m);
    const follower = replicas.find((r) => r !== leader)!;
    expect(sample((await get(follower.metrics, "/metrics")).body, "kedge_pushes_total", { result: "pushed" })).toBe(0);
  });

  it("a change is published once, by the leader", async ({ expect }) => {
    const leader = leaderOf(replicas)!;
    const follower = replicas.find((r) => r !== leader)!;
    const before = await history();
    const [fromLeader, fromFollower] = [leader.watcher.records.length, follower.watcher.records.length];
    east.apply("httproutes", route("once", "once.example.com"));
    await leader.watcher.next((x) => x.pushed === true, fromLeader);
    await follower.watcher.next((x) => x.leading === false && typeof x.trigger === "string" && x.trigger.includes("once"), fromFollower);
    expect(
      await eventually(
        () => served("once.example.com"),
        (c) => c === "east",
      ),
    ).toBe("east");
    expect(await history()).toBe(before + 1);
    expect(follower.watcher.records.slice(fromFollower).some((x) => x.pushed === true)).toBe(false);
  });

  it("the leader SIGKILLed, the other leads within the lease duration and publishes", async ({ expect }) => {
    const leader = leaderOf(replicas)!;
    const follower = replicas.find((r) => r !== leader)!;
    const transitions = Number(lease().leaseTransitions);
    leader.watcher.signal("SIGKILL");
    await leader.watcher.exited;
    const from = follower.watcher.records.length;
    east.apply("httproutes", route("after", "after.example.com"));
    // Within the lease duration (4 s) after the last renewal it saw, plus its retry period's jitter.
    await follower.watcher.next((x) => x.election === "started leading", from, 12_000);
    await follower.watcher.next((x) => x.pushed === true, from, 20_000);
    expect(holder()).toBe(follower.name);
    expect(lease().leaseTransitions).toBe(transitions + 1);
    expect(
      await eventually(
        () => served("after.example.com"),
        (c) => c === "east",
      ),
    ).toBe("east");
    expect(sample((await get(follower.metrics, "/metrics")).body, "leader_election_master_status", { name: LEASE })).toBe(1);
  });

  it("SIGTERM releases the Lease and a waiting replica takes it at its next try", async ({ expect }) => {
    const leader = replicas.find((r) => r.name === holder())!;
    const next = await start("kedge-c");
    await next.watcher.next((x) => x.leading === false && x.leader === leader.name, 0, 60_000);
    leader.watcher.signal("SIGTERM");
    expect(await leader.watcher.exited).toBe(0);
    const released = east.eventsOf("leases").map((e) => e.object.spec as Record<string, unknown>);
    expect(released).toContainEqual(expect.objectContaining({ holderIdentity: "", leaseDurationSeconds: 1 }));
    expect(leader.watcher.records).toContainEqual(expect.objectContaining({ election: "stopped leading" }));
    // The release lets it in at its next try (retry period 500 ms, jittered), not after a lease duration.
    await next.watcher.next((x) => x.election === "started leading", 0, 4_000);
    expect(holder()).toBe("kedge-c");
  });

  it("/healthz fails for a cluster stuck failing past --stale-after, and recovers; /readyz stays up on the snapshot", async ({
    expect,
  }) => {
    const c = replicas.find((r) => r.name === "kedge-c")!;
    await west.stop();
    const failing = await eventually(
      () => get(c.probes, "/healthz"),
      (x) => x.status === 500,
      20_000,
    );
    expect(failing.status).toBe(500);
    expect(failing.body).toMatch(/\[-\]cluster west: its API has not answered for \d+ s, longer than --stale-after/);
    expect((await get(c.probes, "/readyz")).status).toBe(200);
    expect(sample((await get(c.metrics, "/metrics")).body, "kedge_cluster_stale_seconds", { cluster: "west" })).toBeGreaterThan(0);
    await west.restart();
    expect(
      await eventually(
        () => get(c.probes, "/healthz"),
        (x) => x.status === 200,
        40_000,
      ),
    ).toEqual({ status: 200, body: "ok\n" });
  });
});
