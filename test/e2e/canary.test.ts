/**
 * A config canary end to end, through the commands a user runs, on local state the real Worker (workerd, real KV
 * and Durable Objects) serves to real loopback origins: `kedge sync --canary` under steady load, a canary whose
 * backend port has no listener reverted by the edge itself within a few Cron ticks (driven through the same local
 * Cron mechanism `npm start` uses), its failures near its share and none after; a healthy canary promoted by
 * itself; `kedge status`, `kedge history`, `kedge explain`, `kedge promote` and `kedge rollback` on a canary; and
 * the wrangler config's Cron schedule firing the scheduled handler by its clock.
 */
import { afterAll, beforeAll, describe, it } from "vitest";
import { inject } from "vitest";
import { type LocalGateway, startLocalGateway } from "../../scripts/dev/local-gateway";
import { type EchoResponse, type Origin, startOrigin } from "../../scripts/dev/origin-server";
import { freePort, startGateway, Workspace } from "./harness";

const EDGE = `apiVersion: kedge.dev/v1alpha1
kind: EdgeConfig
metadata: { name: shop }
spec:
  gatewayClassName: kedge
  clusters: [{ name: us }]
  rollout: { percent: 10, window: 3s, minRequests: 30, maxErrorRateIncrease: 0.02 }
`;

/** The shop: one route, its Service's one endpoint on `port`. */
const cluster = (port: number) => `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: { name: edge, namespace: shop }
spec:
  gatewayClassName: kedge
  listeners: [{ name: http, protocol: HTTP, port: 80 }]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: { name: web, namespace: shop }
spec:
  parentRefs: [{ name: edge }]
  hostnames: [shop.example.com]
  rules:
    - matches: [{ path: { type: PathPrefix, value: /cart } }]
      sessionPersistence: { sessionName: cart, type: Cookie }
      backendRefs: [{ name: web, port: 80 }]
    - backendRefs: [{ name: web, port: 80 }]
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

interface StatusJson {
  served: string;
  rolledBack?: { from: string; by: string };
  canary?: {
    canary: { version: string; percent: number };
    figures?: { canary: { requests: number; errors: number } };
    verdict?: { decision: string };
  };
  endedCanary?: { ended: { outcome: string; by: string } };
}

/** Steady load from `workers` clients until stopped: each answer with when its request was sent (a request sent
 * before a decision may be answered after it, by the version it was given). */
class Load {
  readonly answers: { at: number; status: number; by?: string }[] = [];
  private stopped = false;
  private readonly done: Promise<void[]>;

  constructor(gateway: LocalGateway, workers = 4, limitMs = 60_000) {
    const until = Date.now() + limitMs;
    const client = async () => {
      while (!this.stopped && Date.now() < until) {
        const at = Date.now();
        const response = await gateway.miniflare.dispatchFetch("http://shop.example.com/");
        const by = response.status === 200 ? ((await response.json()) as EchoResponse).endpoint : undefined;
        if (response.status !== 200) await response.arrayBuffer();
        this.answers.push({ at, status: response.status, ...(by ? { by } : {}) });
      }
    };
    this.done = Promise.all(Array.from({ length: workers }, client));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.done;
  }

  between(from: number, to = Number.POSITIVE_INFINITY) {
    return this.answers.filter((a) => a.at >= from && a.at < to);
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("a config canary the edge decides by itself", { timeout: 180_000 }, () => {
  const ws = new Workspace();
  let stable: Origin;
  let next: Origin;
  let gateway: LocalGateway;

  const status = async (): Promise<StatusJson> => {
    const run = await ws.kedge("status", "--json");
    if (run.code !== 0) throw new Error(`kedge status failed:\n${run.stderr}`);
    return JSON.parse(run.stdout) as StatusJson;
  };

  /** Ticks the Cron (as `npm start` does on its schedule) until the canary ends; how many ticks it took. */
  const tickUntilEnded = async (maxTicks: number): Promise<{ ticks: number; endedAt: number; status: StatusJson }> => {
    for (let ticks = 1; ticks <= maxTicks; ticks++) {
      await sleep(1000);
      await gateway.cron.tick();
      // The isolate applies a decision within the run that makes it.
      const tickedAt = Date.now();
      const now = await status();
      if (now.endedCanary || !now.canary) return { ticks, endedAt: tickedAt, status: now };
    }
    throw new Error(`the canary did not end within ${maxTicks} Cron ticks: ${JSON.stringify(await status())}`);
  };

  beforeAll(async () => {
    stable = await startOrigin({ cluster: "us", endpoint: "stable", backends: ["shop/web"] });
    next = await startOrigin({ cluster: "us", endpoint: "next", backends: ["shop/web"] });
    ws.write({ "kedge.yaml": EDGE, "clusters/us/shop.yaml": cluster(stable.port) });
    const synced = await ws.sync();
    if (synced.code !== 0) throw new Error(`sync failed:\n${synced.stdout}${synced.stderr}`);
    gateway = await startGateway(ws.state, "shop");
  });
  afterAll(async () => {
    await gateway?.dispose();
    await Promise.all([stable?.close(), next?.close()]);
    ws.remove();
  });

  it("reverts a canary whose backend port has no listener within a few Cron ticks: failures near its share while it lasted, none after", async ({
    expect,
  }) => {
    const load = new Load(gateway);
    await sleep(500);
    ws.write({ "clusters/us/shop.yaml": cluster(await freePort()) });
    const pushed = await ws.sync("--canary", "20");
    expect(pushed.code).toBe(0);
    expect(pushed.stdout).toContain("as a canary");
    expect(pushed.stdout).toContain("gets 20% of new requests and new sessions");
    const started = Date.now();
    const { ticks, endedAt, status: after } = await tickUntilEnded(8);
    await sleep(1500);
    await load.stop();
    expect(ticks).toBeLessThanOrEqual(5);
    expect(after.endedCanary?.ended).toMatchObject({ outcome: "reverted", by: "the edge (canary analysis)" });
    expect(after.rolledBack?.by).toBe("the edge (canary analysis)");
    const during = load.between(started, endedAt);
    const failedShare = during.filter((a) => a.status !== 200).length / during.length;
    expect(during.length).toBeGreaterThan(50);
    // The canary's share was 20%: what failed stays near it.
    expect(failedShare).toBeGreaterThan(0.05);
    expect(failedShare).toBeLessThan(0.4);
    // The isolate applies the decision when its Cron run makes it: nothing fails after.
    const afterwards = load.between(endedAt);
    expect(afterwards.length).toBeGreaterThan(20);
    expect(afterwards.filter((a) => a.status !== 200)).toEqual([]);

    const history = await ws.kedge("history");
    expect(history.code).toBe(0);
    expect(history.stdout).toMatch(
      /canary 20%: reverted by the edge \(canary analysis\) at .*: canary [0-9a-f]{12} (\d+) of \1 \(100\.0%\)/,
    );
    // Status tells the ended canary in the past tense, with how it ended.
    const text = (await ws.kedge("status")).stdout;
    expect(text).toMatch(/canary [0-9a-f]{20} \(ended\): took 20% of new requests and sessions from /);
    expect(text).toContain("reverted by the edge (canary analysis) at ");
    expect(text).not.toContain("20% of new requests and sessions since");
  });

  it("promotes a healthy canary by itself once its window has passed with enough requests", async ({ expect }) => {
    const load = new Load(gateway);
    ws.write({ "clusters/us/shop.yaml": cluster(next.port) });
    const pushed = await ws.sync("--canary", "30");
    expect(pushed.code).toBe(0);
    const started = Date.now();
    const { status: after } = await tickUntilEnded(10);
    await sleep(1000);
    await load.stop();
    expect(after.endedCanary?.ended).toMatchObject({ outcome: "promoted", by: "the edge (canary analysis)" });
    const during = load.between(started);
    expect(during.filter((a) => a.status !== 200)).toEqual([]);
    const last = load.answers.slice(-20);
    expect(new Set(last.map((a) => a.by))).toEqual(new Set(["next"]));
    const history = await ws.kedge("history", "--json");
    const entries = (JSON.parse(history.stdout) as { served: string; history: { version: string }[] }).history;
    expect((JSON.parse(history.stdout) as { served: string }).served).toBe(entries[0]!.version);
  });

  it("kedge status and explain show a canary in progress with both versions' figures; kedge promote and kedge rollback end one by hand", async ({
    expect,
  }) => {
    ws.write({ "clusters/us/shop.yaml": cluster(stable.port) });
    expect((await ws.sync("--canary", "50")).code).toBe(0);
    for (let i = 0; i < 40; i++) await gateway.miniflare.dispatchFetch("http://shop.example.com/").then((r) => r.arrayBuffer());
    const before = await status();
    await gateway.cron.tick();
    const running = await status();
    expect(running.canary?.canary.percent).toBe(50);
    expect(running.canary?.figures?.canary.requests).toBeGreaterThan(5);
    expect(running.served).toBe(before.served);
    const text = await ws.kedge("status");
    expect(text.stdout).toMatch(/canary [0-9a-f]{20}: 50% of new requests and sessions/);
    expect(text.stdout).toMatch(/canary {2}[0-9a-f]{20}: \d+ of \d+ \(\d+\.\d%\) errors of requests/);
    expect(text.stdout).toMatch(/current [0-9a-f]{20}: \d+ of \d+/);
    const explained = await ws.kedge("explain", "--host", "shop.example.com");
    expect(explained.code).toBe(0);
    expect(explained.stdout).toMatch(/version: by share: 50% of new requests and sessions get the canary [0-9a-f]{20}, 50% the current/);
    expect(explained.stdout).toContain(`under the canary ${running.canary!.canary.version} (50% of new requests and sessions):`);
    // A session that started on the canary: explain opens its token (the local state's key) and names its version.
    let canaryCookie: string | undefined;
    for (let i = 0; i < 40 && !canaryCookie; i++) {
      const response = await gateway.miniflare.dispatchFetch("http://shop.example.com/cart");
      const answer = (await response.json()) as EchoResponse;
      if (answer.endpoint === "stable") canaryCookie = response.headers.get("set-cookie")!.split(";")[0];
    }
    expect(canaryCookie).toMatch(/^cart=/);
    const bySession = await ws.kedge("explain", "--host", "shop.example.com", "--path", "/cart", "--cookie", canaryCookie!);
    expect(bySession.stdout).toContain(
      `version: its session started on the canary ${running.canary!.canary.version}: it stays on ${running.canary!.canary.version} until the canary ends`,
    );

    const promoted = await ws.kedge("promote");
    expect(promoted.code).toBe(0);
    expect(promoted.stdout).toContain("promoted by hand");
    expect((await status()).served).toBe(running.canary!.canary.version);
    for (let i = 0; i < 10; i++) {
      const answer = (await (await gateway.miniflare.dispatchFetch("http://shop.example.com/")).json()) as EchoResponse;
      expect(answer.endpoint).toBe("stable");
    }
    expect((await ws.kedge("promote")).code).toBe(1);

    ws.write({ "clusters/us/shop.yaml": cluster(next.port) });
    expect((await ws.sync("--canary", "50")).code).toBe(0);
    const rolled = await ws.kedge("rollback");
    expect(rolled.code).toBe(0);
    expect(rolled.stdout).toContain("reverted by hand");
    const reverted = await status();
    expect(reverted.served).toBe(running.canary!.canary.version);
    expect(reverted.canary).toBeUndefined();
    for (let i = 0; i < 10; i++) {
      const answer = (await (await gateway.miniflare.dispatchFetch("http://shop.example.com/")).json()) as EchoResponse;
      expect(answer.endpoint).toBe("stable");
    }
    expect((await ws.kedge("history")).stdout).toMatch(/canary 50%: reverted by kedge rollback/);
  });

  it("fires the scheduled handler on the wrangler config's Cron schedule, as npm start does", async ({ expect }) => {
    await gateway.dispose();
    ws.write({ "clusters/us/shop.yaml": cluster(stable.port) });
    const clusterNext = cluster(next.port);
    ws.write({ "clusters/us/shop.yaml": clusterNext });
    expect((await ws.sync("--canary", "50")).code).toBe(0);
    // The clock 1.5 s before a minute's end: the "* * * * *" schedule is due then, without a minute's wait.
    const offset = 60_000 - (Date.now() % 60_000) - 1500;
    gateway = await startLocalGateway({
      persistTo: ws.state,
      vars: { TABLE_REFRESH_SECONDS: "0", KEDGE_TABLE: "shop" },
      scriptPath: inject("workerBundle"),
      cron: "schedule",
      clock: () => Date.now() + offset,
    });
    expect(gateway.cron.schedules.map((s) => s.expression)).toEqual(["* * * * *"]);
    for (let i = 0; i < 10; i++) await gateway.miniflare.dispatchFetch("http://shop.example.com/").then((r) => r.arrayBuffer());
    const deadline = Date.now() + 20_000;
    let analysed: StatusJson["canary"];
    while (Date.now() < deadline && !analysed?.verdict) {
      await sleep(500);
      analysed = (await status()).canary;
    }
    // Nothing but the schedule ran the analysis: it waits for more canary requests.
    expect(analysed?.verdict?.decision).toBe("wait");
  });
});
