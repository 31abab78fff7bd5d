/**
 * The store `sync --remote` pushes through: wrangler's own `kv key` commands. Run here against local state
 * (`--local --persist-to`, the same commands offline): a table pushed through it reads back byte for byte,
 * and the Worker serves it.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, it } from "vitest";
import type { LocalGateway } from "../../scripts/lib/local-gateway";
import type { Origin } from "../../scripts/lib/origin-server";
import { readWranglerFacts } from "../../scripts/lib/wrangler-config";
import type { KvStore } from "../../scripts/sync/kv-store";
import { loadConfig } from "../../scripts/sync/load-config";
import { pushTable, readCurrentTable } from "../../scripts/sync/publish";
import { openRemoteKv } from "../../scripts/sync/remote-kv";
import { planOrRefuse } from "../../scripts/sync/run-sync";
import { compileRouteTable } from "../../src/compile/compile-route-table";
import { endpointSlice, gatewayAndRoute, service, yamlDocs } from "../support/manifests";
import { ROOT, startGateway, startOrigins, tally, tearDown, Workspace } from "./harness";

const EDGE = `apiVersion: kedge.dev/v1alpha1
kind: EdgeConfig
metadata: { name: via-wrangler }
spec: { gatewayClassName: kedge, clusters: [{ name: c1 }] }
`;

describe("KV through wrangler's kv key commands (the --remote store, pointed at local state)", () => {
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

  it("reads back exactly what it wrote (no added newline, multi-byte text whole), and null once deleted", async ({ expect }) => {
    const text = JSON.stringify({ note: "café ✓ — ünïcode", n: 1 });
    await kv.put("probe", text);
    expect(await kv.get("probe")).toBe(text);
    await kv.delete("probe");
    expect(await kv.get("probe")).toBeNull();
  });

  it("pushes a table the Worker then serves, and reads it back as the served table", async ({ expect }) => {
    const loaded = loadConfig(ws.config);
    const result = await compileRouteTable(loaded.edge, loaded.manifests);
    const outcome = await pushTable(kv, planOrRefuse(result.table, {}, result.text));
    expect(outcome).toMatchObject({ changed: true, version: result.table.version });
    expect(await readCurrentTable(kv, "via-wrangler")).toEqual(result.table);
    gateway = await startGateway(ws.state, "via-wrangler");
    expect(await tally(gateway, "shop.example.com", "/", 10)).toEqual({ café: 10 });
  });
});
