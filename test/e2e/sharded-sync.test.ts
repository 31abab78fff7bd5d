/**
 * A table above the shard size, end to end: `sync --shard-size` stores it in shards by host, the Worker
 * serves every kind of host from them, --dry-run diffs against the sharded table, and --rollback works.
 */
import { afterAll, beforeAll, describe, it } from "vitest";
import type { LocalGateway } from "../../scripts/dev/local-gateway";
import type { Origin } from "../../scripts/dev/origin-server";
import { EDGE_YAML } from "../support/conformance-infra";
import { manyHostsYaml } from "../support/many-hosts";
import { startGateway, startOrigins, tally, tearDown, Workspace } from "./harness";

describe("sync of a sharded table ▸ KV ▸ Worker", () => {
  const ws = new Workspace();
  let origins: Record<string, Origin>;
  let gateway: LocalGateway;
  let ports: { v1: number; v2: number; v3: number };

  beforeAll(async () => {
    origins = await startOrigins(["v1", "v2", "v3"]);
    ports = { v1: origins.v1!.port, v2: origins.v2!.port, v3: origins.v3!.port };
    ws.write({ "kedge.yaml": EDGE_YAML, "clusters/c1/routes.yaml": manyHostsYaml(ports, 120) });
    gateway = await startGateway(ws.state, "test");
  });

  afterAll(() => tearDown({ gateway, origins, ws }));

  it("stores the table in shards and serves exact, wildcard and catch-all hosts from them", async ({ expect }) => {
    const sync = await ws.sync("--shard-size", "8KiB", "--json");
    expect(sync.code, sync.stderr).toBe(0);
    const summary = JSON.parse(sync.stdout) as { table: { shards: number; rules: number }; written: boolean };
    expect(summary.written).toBe(true);
    expect(summary.table.shards).toBeGreaterThan(3);
    // r5 (h5, h6) → v3; r30 (*.w0.example) → v1; r7 (no hostname) → v2.
    expect(await tally(gateway, "h6.example", "/r5/a", 10)).toEqual({ v3: 10 });
    expect(await tally(gateway, "x.w0.example", "/r30", 10)).toEqual({ v1: 10 });
    expect(await tally(gateway, "elsewhere.example", "/r7", 10)).toEqual({ v2: 10 });
    expect(await tally(gateway, "h6.example", "/r7/b", 5)).toEqual({ v2: 5 });
    expect(await tally(gateway, "h6.example", "/r50", 5)).toEqual({ "status 404": 5 });
  });

  it("--dry-run diffs against the sharded table, and --rollback goes back to it", async ({ expect }) => {
    const same = await ws.sync("--shard-size", "8KiB", "--dry-run");
    expect(same.stdout).toMatch(/the edge already serves \w+; nothing would be written/);

    // r5 moves to v1 (its backendRef index follows the route number).
    ws.write({
      "clusters/c1/routes.yaml": manyHostsYaml(ports, 120).replace(
        "/r5 } }]\n      backendRefs: [{ name: infra-backend-v3",
        "/r5 } }]\n      backendRefs: [{ name: infra-backend-v1",
      ),
    });
    const dry = await ws.sync("--shard-size", "8KiB", "--dry-run");
    expect(dry.code).toBe(0);
    expect(dry.stdout.match(/^ {2}[~+-] .*$/gm)).toEqual(["  ~ rule c1/gateway-conformance-infra/r5/rule/0"]);

    expect((await ws.sync("--shard-size", "8KiB")).stdout).toMatch(/in \d+ shards by host/);
    expect(await tally(gateway, "h5.example", "/r5", 10)).toEqual({ v1: 10 });
    const rollback = await ws.kedge("rollback");
    expect(rollback.code, rollback.stderr).toBe(0);
    expect(await tally(gateway, "h5.example", "/r5", 10)).toEqual({ v3: 10 });
  });
});
