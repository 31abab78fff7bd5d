/**
 * The store `sync --remote` pushes through: wrangler's own `kv key` commands. Run here against local state
 * (`--local --persist-to`, the same commands offline): a table pushed through it reads back byte for byte,
 * and the Worker serves it.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, it } from "vitest";
import type { LocalGateway } from "../../scripts/dev/local-gateway";
import type { Origin } from "../../scripts/dev/origin-server";
import { readWranglerFacts } from "../../scripts/config/wrangler-config";
import type { KvStore } from "../../scripts/store/kv-store";
import { loadConfig } from "../../scripts/config/load-config";
import { pushTable } from "../../scripts/store/publish";
import { readCurrentTable } from "../support/current-table";
import { openRemoteKv } from "../../scripts/store/remote-kv";
import { planOrRefuse } from "../../scripts/cli/compile-for-edge";
import { compileRouteTable } from "../../src/compile/compile-route-table";
import { endpointSlice, gatewayAndRoute, service, yamlDocs } from "../support/manifests";
import { ROOT, startGateway, startOrigins, tally, tearDown, Workspace } from "./harness";

const EDGE = `apiVersion: kedge.dev/v1alpha1
kind: EdgeConfig
metadata: { name: via-wrangler }
spec: { gatewayClassName: kedge, clusters: [{ name: c1 }] }
`;

describe("KV through wrangler's kv key commands (the --remote store, pointed at local state)", { timeout: 180_000 }, () => {
  const ws = new Workspace();
  let origins: Record<string, Origin>;
  let gateway: LocalGateway | undefined;
  let kv: KvStore;

  beforeAll(async () => {
    origins = await startOrigins(["café"]);
    ws.write({
      "kedge.yaml": EDGE,
      "clusters/c1/app.yaml": yamlDocs(
        gatewayAndRoute({
          namespace: "shop",
          hostname: "shop.example.com",
          route: "shop",
          rules: `    - backendRefs: [{ name: café, port: 8080 }]`,
        }),
        service("café", "shop"),
        endpointSlice({ service: "café", name: "café-1", namespace: "shop", port: origins.café!.port }),
      ),
    });
    const wranglerConfig = join(ROOT, "wrangler.toml");
    kv = openRemoteKv(readWranglerFacts(wranglerConfig).kvNamespaceId, wranglerConfig, ["--local", "--persist-to", ws.state]);
  });

  afterAll(async () => {
    await kv.close();
    await tearDown({ gateway, origins, ws });
  });

  it("reads back exactly what it wrote (no added newline, multi-byte text whole), and null once deleted, also in bulk", async ({
    expect,
  }) => {
    const text = JSON.stringify({ note: "café ✓ — ünïcode", n: 1 });
    await kv.put("probe", text);
    expect(await kv.get("probe")).toBe(text);
    await kv.delete("probe");
    expect(await kv.get("probe")).toBeNull();
    // Pruning an old version: its keys in one bulk delete, a key already gone among them.
    await kv.putMany([
      ["old/a", "1"],
      ["old/b", "2"],
      ["kept", "3"],
    ]);
    await kv.deleteMany(["old/a", "old/b", "old/never-written"]);
    expect(await kv.getMany(["old/a", "old/b", "kept"])).toEqual([null, null, "3"]);
  });

  it("pushes a table the Worker then serves, and reads it back as the served table", async ({ expect }) => {
    const loaded = loadConfig(ws.config);
    const result = await compileRouteTable(loaded.edge, loaded.manifests);
    const outcome = await pushTable(kv, planOrRefuse(result.table, {}, result));
    expect(outcome).toMatchObject({ changed: true, version: result.table.version });
    expect(await readCurrentTable(kv, "via-wrangler")).toEqual(result.table);
    gateway = await startGateway(ws.state, "via-wrangler");
    expect(await tally(gateway, "shop.example.com", "/", 10)).toEqual({ café: 10 });
  });

  it("pushes a sharded table in bulk (one wrangler process per batch, progress per batch) and reads it back whole", async ({ expect }) => {
    // 30 routes on 30 hosts: a table of a few dozen KiB, in shards of about 2 KiB.
    const routes = Array.from(
      { length: 30 },
      (_, i) => `apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: { name: r${i}, namespace: shop }
spec:
  parentRefs: [{ name: gw }]
  hostnames: [h${i}.example.com]
  rules: [{ matches: [{ path: { type: PathPrefix, value: /app${i} } }], backendRefs: [{ name: café, port: 8080 }] }]
`,
    );
    const manifests = yamlDocs(
      gatewayAndRoute({ namespace: "shop", route: "first", rules: "    - backendRefs: [{ name: café, port: 8080 }]" }),
      service("café", "shop"),
      ...routes,
    );
    const lines: string[] = [];
    const wranglerConfig = join(ROOT, "wrangler.toml");
    const bulk = openRemoteKv(
      readWranglerFacts(wranglerConfig).kvNamespaceId,
      wranglerConfig,
      ["--local", "--persist-to", ws.state],
      (line) => lines.push(line),
    );
    try {
      const { parse } = await import("yaml");
      const { parseEdgeConfig } = await import("../../src/compile/input/edge-config");
      const { parseManifestFile } = await import("../../src/gateway-api/parse-manifests");
      const edge = parseEdgeConfig(parse(EDGE.replace("via-wrangler", "bulk")), "kedge.yaml");
      const result = await compileRouteTable(edge, parseManifestFile("c1", "many.yaml", manifests).manifests);
      const plan = planOrRefuse(result.table, { shardBytes: 2048 }, result);
      expect(plan.shards.length).toBeGreaterThanOrEqual(10);
      const outcome = await pushTable(bulk, plan);
      expect(outcome).toMatchObject({ changed: true, version: result.table.version });
      // All shards in one bulk write, read back ten at a time.
      expect(lines.filter((l) => l.includes("written"))).toEqual([
        `  written ${plan.shards.length} of ${plan.shards.length} values`,
        "  written 1 of 1 values",
      ]);
      // The shards ten at a time and the blob, read back; and the lease's check, which reads the pointer and history with it.
      expect(lines.filter((l) => l.includes("  read ")).length).toBe(Math.ceil(plan.shards.length / 10) + 2);
      // Joined from its shards: the same version, rules and backends (match positions are the shards' own).
      const joined = await readCurrentTable(bulk, "bulk");
      expect(joined?.version).toBe(result.table.version);
      expect(joined?.rules.map((r) => r.id).sort()).toEqual(result.table.rules.map((r) => r.id).sort());
      expect(joined?.backends).toEqual(result.table.backends);
    } finally {
      await bulk.close();
    }
  });
});
