/**
 * A cluster dies end to end: the failover scenario's manifests in three clusters (one folder each, identical
 * YAML but for each cluster's EndpointSlices) ▸ the sync CLI ▸ the Worker in workerd ▸ loopback origins, of which one
 * cluster's are closed mid-test. Checks what the issue "Survive a cluster's death" asks: every idempotent
 * request answered, sessions pinned to the dead cluster moved at once with a new token, and error bodies
 * that name no address when nothing can answer.
 */
import { afterAll, beforeAll, describe, it } from "vitest";
import type { LocalGateway } from "../../scripts/dev/local-gateway";
import { type EchoResponse, type Origin, startOrigin } from "../../scripts/dev/origin-server";
import { FAILOVER_EDGE, FAILOVER_SHARED, failoverSlices } from "../support/failover-scenario";
import { startGateway, tearDown, Workspace } from "./harness";

const CLUSTERS = ["east", "west", "south"] as const;
type Cluster = (typeof CLUSTERS)[number];

describe("a cluster dies under identical manifests, pinned sessions and load", { timeout: 60_000 }, () => {
  const ws = new Workspace();
  const origins: Record<string, Origin> = {};
  let gateway: LocalGateway;

  beforeAll(async () => {
    for (const cluster of CLUSTERS)
      for (const i of [0, 1])
        origins[`${cluster}-${i}`] = await startOrigin({ cluster, endpoint: `${cluster}-${i}`, backends: ["shop/web"] });
    ws.write({ "kedge.yaml": FAILOVER_EDGE });
    for (const cluster of CLUSTERS) {
      const slices = failoverSlices([0, 1].map((i) => origins[`${cluster}-${i}`]!.port));
      ws.write({ [`clusters/${cluster}/shared.yaml`]: FAILOVER_SHARED, [`clusters/${cluster}/endpoints.yaml`]: slices });
    }
    const synced = await ws.sync();
    if (synced.code !== 0) throw new Error(`sync failed:\n${synced.stdout}${synced.stderr}`);
    gateway = await startGateway(ws.state, "failover");
  });
  afterAll(() => tearDown({ gateway, origins, ws }));

  const get = async (path: string, cookie?: string) => {
    const response = await gateway.miniflare.dispatchFetch(`http://shop.example.com${path}`, cookie ? { headers: { cookie } } : {});
    const text = await response.text();
    const cluster = response.status === 200 ? ((JSON.parse(text) as EchoResponse).cluster as Cluster) : undefined;
    return { status: response.status, cluster, text, setCookie: response.headers.get("set-cookie") };
  };

  it("the sync reports one route across the three clusters, and traffic reaches all three", async ({ expect }) => {
    const synced = await ws.sync("--dry-run");
    expect(synced.stdout).toContain("aggregate across clusters: east, west, south");
    expect(synced.stdout).toContain("backend Service shop/web:8080 from east, west, south");
    const seen = new Set<string | undefined>();
    for (let i = 0; i < 60; i++) seen.add((await get("/")).cluster);
    expect([...seen].sort()).toEqual(["east", "south", "west"]);
  });

  it("sessions pinned to the dead cluster move at once, with a new token; no idempotent request fails", async ({ expect }) => {
    // Pin sessions until one lands on east.
    let pinned: { cookie: string } | undefined;
    const others: string[] = [];
    for (let i = 0; i < 60 && (!pinned || others.length < 3); i++) {
      const answer = await get("/cart");
      const cookie = answer.setCookie!.split(";")[0]!;
      if (answer.cluster === "east") pinned ??= { cookie };
      else others.push(cookie);
    }
    expect(pinned).toBeDefined();
    await Promise.all([origins["east-0"]!.close(), origins["east-1"]!.close()]);

    const moved = await get("/cart", pinned!.cookie);
    expect(moved.status).toBe(200);
    expect(moved.cluster).not.toBe("east");
    expect(moved.setCookie).toMatch(/^cart=/);
    const newCookie = moved.setCookie!.split(";")[0]!;
    expect(newCookie).not.toBe(pinned!.cookie);
    for (let i = 0; i < 10; i++) {
      const again = await get("/cart", newCookie);
      expect(again.cluster).toBe(moved.cluster);
      expect(again.setCookie).toBeNull();
    }
    // Sessions pinned elsewhere are untouched.
    for (const cookie of others) expect((await get("/cart", cookie)).setCookie).toBeNull();
    // Under load, with east dead: every GET answered, none by east.
    const answers = await Promise.all(Array.from({ length: 60 }, () => get("/")));
    expect(answers.filter((a) => a.status !== 200)).toEqual([]);
    expect(answers.some((a) => a.cluster === "east")).toBe(false);
  });

  it("with every cluster dead: 503 with a code, a plain sentence and the request id, and no address", async ({ expect }) => {
    await Promise.all(["west-0", "west-1", "south-0", "south-1"].map((o) => origins[o]!.close()));
    const answer = await get("/");
    expect(answer.status).toBe(503);
    const body = JSON.parse(answer.text) as Record<string, string>;
    expect(Object.keys(body).sort()).toEqual(["error", "message", "requestId"]);
    expect(body.error).toBe("UPSTREAM_UNREACHABLE");
    expect(answer.text).not.toMatch(/127\.0\.0\.1|east|west|south|shop\/web|:\d{4,5}/);
  });
});
