/**
 * A table stored in shards by host, served by the real Worker from real KV: each host is answered from its
 * own shard, an isolate reads only the shards of the hosts asked for, and a shard that cannot be read costs
 * only its own hosts (or is answered from the previous version right after a switch).
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, inject, it } from "vitest";
import worker from "../../src/index";
import { cronRun, healthSwitch } from "./active-health";
import { KV_KEYS } from "../../src/table/kv-keys";
import { type HealthRecord, isSharded, type ShardedTable } from "../../src/table/route-table";
import { compilePlanned, type SentPlan } from "./compile";
import { manyHostsYaml } from "../support/many-hosts";

/** This file's own health switch on the shared origins. */
const HEALTH = healthSwitch("sharded-table");

const TOKEN = "status-token-for-sharding";

async function shardedPlan(
  name: string,
  routes: number,
  spec = "",
  ports: { v1: number; v2: number; v3: number } = inject("originPorts"),
): Promise<{ plan: SentPlan; root: ShardedTable }> {
  const edge = `
apiVersion: kedge.dev/v1alpha1
kind: EdgeConfig
metadata: { name: ${name} }
spec:
  gatewayClassName: kedge
  clusters: [{ name: c1 }]
${spec}`;
  const { plan: planned } = await compilePlanned(edge, { c1: manyHostsYaml(ports, routes) }, 24 * 1024);
  if (!planned.ok || !isSharded(planned.plan.root.value)) throw new Error("expected a sharded plan");
  return { plan: planned.plan, root: planned.plan.root.value };
}

/** Shards, root, then pointer: the order the sync writes them. */
async function publish({ plan, root }: { plan: SentPlan; root: ShardedTable }): Promise<void> {
  for (const [i, shard] of plan.shards.entries()) await env.ROUTES.put(KV_KEYS.shard(root.name, root.version, i), shard.text);
  await env.ROUTES.put(KV_KEYS.blob(root.name, root.version), plan.root.text);
  await env.ROUTES.put(
    KV_KEYS.current(root.name),
    JSON.stringify({ version: root.version, schemaVersion: root.schemaVersion, updatedAt: new Date().toISOString() }),
  );
}

async function send(table: string, url: string, headers: Record<string, string> = {}): Promise<Response> {
  const ctx = createExecutionContext();
  const response = await worker.fetch(new Request(url, { headers }), { ...env, KEDGE_TABLE: table, KEDGE_STATUS_TOKEN: TOKEN }, ctx);
  await waitOnExecutionContext(ctx);
  return response;
}

const endpointOf = async (response: Response) => ((await response.json()) as { endpoint?: string; error?: string }).endpoint;

describe("sharded route table", () => {
  it("serves a canary of a sharded table beside the current one: both versions' shards load, the split reaches both", async ({
    expect,
  }) => {
    const ports = inject("originPorts");
    const current = await shardedPlan("shard-canary", 300);
    // The same routes with the origins turned round: r5's backend (v3) answers from the v1 origin in the canary.
    const canary = await shardedPlan("shard-canary", 300, "", { v1: ports.v2, v2: ports.v3, v3: ports.v1 });
    await publish(current);
    for (const [i, shard] of canary.plan.shards.entries())
      await env.ROUTES.put(KV_KEYS.shard("shard-canary", canary.root.version, i), shard.text);
    await env.ROUTES.put(KV_KEYS.blob("shard-canary", canary.root.version), canary.plan.root.text);
    const startedAt = new Date().toISOString();
    await env.ROUTES.put(
      KV_KEYS.current("shard-canary"),
      JSON.stringify({
        version: current.root.version,
        schemaVersion: current.root.schemaVersion,
        updatedAt: startedAt,
        canary: {
          id: `${canary.root.version}-test`,
          version: canary.root.version,
          percent: 50,
          startedAt,
          by: "test",
          analysis: { windowMs: 0, minRequests: 1_000_000, maxErrorRateIncrease: 0.02 },
        },
      }),
    );
    const seen: Record<string, number> = {};
    for (let i = 0; i < 120; i++) {
      const endpoint = (await endpointOf(await send("shard-canary", "http://h5.example/r5/x"))) ?? "?";
      seen[endpoint] = (seen[endpoint] ?? 0) + 1;
    }
    expect(Object.keys(seen).sort()).toEqual(["infra-backend-v1", "infra-backend-v3"]);
    expect(seen["infra-backend-v1"]).toBeGreaterThan(30);
    expect(seen["infra-backend-v1"]).toBeLessThan(90);
  });

  it("answers each host from its own shard and reads only the shards asked for", async ({ expect }) => {
    const sharded = await shardedPlan("shard-a", 300);
    await publish(sharded);
    const { directory, shards } = sharded.root;
    expect(shards.length).toBeGreaterThan(3);

    // r5 is on h5 and h6 to infra-backend-v3; r30 on *.w0.example to v1; r7 has no hostname (any host) to v2.
    const exact = await send("shard-a", "http://h5.example/r5/x");
    expect(exact.status).toBe(200);
    expect(await endpointOf(exact)).toBe("infra-backend-v3");
    const wildcard = await send("shard-a", "http://deep.sub.w0.example/r30");
    expect(await endpointOf(wildcard)).toBe("infra-backend-v1");
    const anyHost = await send("shard-a", "http://not-named.example/r7/y");
    expect(await endpointOf(anyHost)).toBe("infra-backend-v2");
    // A path no route of that host has: 404, whatever other shards hold.
    expect((await send("shard-a", "http://h5.example/r6")).status).toBe(404);

    const status = await send("shard-a", "http://h5.example/.well-known/kedge/status", { authorization: `Bearer ${TOKEN}` });
    const body = (await status.json()) as { table: { version: string; shards: { count: number; loaded: number[] } } };
    const asked = [directory.HTTP!.exact["h5.example"]!, directory.HTTP!.wildcard["w0.example"]!, directory.HTTP!.any!];
    expect(body.table.version).toBe(sharded.root.version);
    expect(body.table.shards.count).toBe(shards.length);
    expect(body.table.shards.loaded).toEqual([...new Set(asked)].sort((a, b) => a - b));
  });

  it("a shard missing from KV fails only its own hosts, with a clean 503", async ({ expect }) => {
    const sharded = await shardedPlan("shard-b", 300);
    await publish(sharded);
    const { directory } = sharded.root;
    const lost = directory.HTTP!.exact["h10.example"]!;
    const other = Object.entries(directory.HTTP!.exact).find(([, shard]) => shard !== lost)!;
    await env.ROUTES.delete(KV_KEYS.shard("shard-b", sharded.root.version, lost));

    const failed = await send("shard-b", "http://h10.example/r10");
    expect(failed.status).toBe(503);
    expect(await failed.json()).toMatchObject({ error: "ROUTE_TABLE_UNAVAILABLE" });
    const [host] = other;
    const i = Number(/^h(\d+)\./.exec(host)![1]);
    const served = await send("shard-b", `http://${host}/r${i}/z`, { "x-shard": "yes" });
    expect(served.status).toBe(200);
  });

  it("right after a switch, a host whose new shard cannot be read is answered from the previous version", async ({ expect }) => {
    const first = await shardedPlan("shard-c", 300);
    await publish(first);
    expect(await endpointOf(await send("shard-c", "http://h22.example/r22"))).toBe("infra-backend-v2");

    const second = await shardedPlan("shard-c", 301);
    expect(second.root.version).not.toBe(first.root.version);
    await publish(second);
    await env.ROUTES.delete(KV_KEYS.shard("shard-c", second.root.version, second.root.directory.HTTP!.exact["h22.example"]!));
    const response = await send("shard-c", "http://h22.example/r22");
    expect(response.status).toBe(200);
    expect(await endpointOf(response)).toBe("infra-backend-v2");
  });

  it("the Cron health checks probe the endpoints of every shard, and traffic avoids the unhealthy one", async ({ expect }) => {
    const ports = inject("originPorts");
    const sharded = await shardedPlan(
      "shard-d",
      300,
      `  healthChecks: { path: ${HEALTH.path}, timeout: 1s, healthyThreshold: 1, unhealthyThreshold: 1 }\n`,
    );
    await publish(sharded);
    await HEALTH.set(ports.v1, 500);
    await HEALTH.set(ports.v3, 500);
    try {
      await cronRun({ ...env, KEDGE_TABLE: "shard-d" });
      const health = (await env.ROUTES.get(KV_KEYS.health("shard-d"), "json")) as HealthRecord;
      // Read from the shards, the endpoints of every backend with a check were probed: two are unhealthy.
      expect(health.unhealthy).toEqual([ports.v1, ports.v3].map((p) => `c1/127.0.0.1:${p}`).sort());
      // r5 goes to v3 alone: with its only endpoint unhealthy the request still goes there (nothing else can serve).
      expect((await send("shard-d", "http://h5.example/r5")).status).toBe(200);
    } finally {
      await HEALTH.set(ports.v1, 200);
      await HEALTH.set(ports.v3, 200);
    }
  });
});
