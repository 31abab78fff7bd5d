/**
 * Pushes of one table take turns and lose nothing: the push lease (another push's lease is waited for, or
 * named when the wait runs out; a lease of a push that died frees the table), the history read again right
 * before it is written, and a corrupt history rebuilt from the versions still stored rather than read as empty.
 */
import { describe, it } from "vitest";
import { pushTable, readHistory } from "../../scripts/store/publish";
import { rollbackTable } from "../../scripts/store/rollback";
import { LEASE_MS, takeLease } from "../../scripts/store/push-lease";
import { planStorage, type StoragePlan } from "../../src/table/shard-table";
import { KV_KEYS } from "../../src/table/kv-keys";
import { compileYaml } from "../support/compile-fixture";
import { edgeConfig, gatewayAndRoute, service, yamlDocs } from "../support/manifests";
import { MemoryKv } from "../support/memory-kv";

/** A table named `t` whose one route sends to Service `backend` (a different table per name). */
async function planFor(backend: string): Promise<StoragePlan> {
  const { table } = await compileYaml(edgeConfig("t"), {
    c1: yamlDocs(
      gatewayAndRoute({ namespace: "shop", rules: `    - backendRefs: [{ name: ${backend}, port: 8080 }]` }),
      service(backend, "shop"),
    ),
  });
  const planned = planStorage(table);
  if (!planned.ok) throw new Error(planned.problem);
  return planned.plan;
}

const lease = (owner: string, expiresAt: number, pid = 1, host = "elsewhere") =>
  JSON.stringify({
    owner,
    holder: `ci@${host} pid ${pid}`,
    host,
    pid,
    startedAt: "2026-11-26T00:00:00.000Z",
    expiresAt: new Date(expiresAt).toISOString(),
  });

describe("the push lease", () => {
  it("waits for another push's lease, then takes the table once it is released", async ({ expect }) => {
    const kv = new MemoryKv();
    kv.values.set(KV_KEYS.lease("t"), lease("other", Date.now() + LEASE_MS));
    const waited: string[] = [];
    let slept = 0;
    const held = await takeLease(kv, "t", {
      waitMs: 60_000,
      waiting: (holder) => waited.push(holder),
      sleep: async () => {
        if (++slept === 3) kv.values.delete(KV_KEYS.lease("t"));
      },
    });
    expect(waited).toEqual([expect.stringContaining("ci@elsewhere pid 1 (since 2026-11-26T00:00:00.000Z")]);
    expect(slept).toBe(3);
    expect(JSON.parse(kv.values.get(KV_KEYS.lease("t"))!)).toMatchObject({ pid: process.pid });
    await held.release();
    expect(kv.values.has(KV_KEYS.lease("t"))).toBe(false);
  });

  it("gives up when the wait runs out, naming the other push; nothing of the lease is taken", async ({ expect }) => {
    const kv = new MemoryKv();
    const theirs = lease("other", Date.now() + LEASE_MS);
    kv.values.set(KV_KEYS.lease("t"), theirs);
    let clock = Date.now();
    const taking = takeLease(kv, "t", { waitMs: 5000, now: () => clock, sleep: async (ms) => void (clock += ms) });
    await expect(taking).rejects.toThrow(/another push of table t is under way: ci@elsewhere pid 1 .*waited 5 s, nothing was written/);
    expect(kv.values.get(KV_KEYS.lease("t"))).toBe(theirs);
  });

  it("a lease that expired, or whose process on this machine is gone, holds nothing", async ({ expect }) => {
    const { hostname } = await import("node:os");
    for (const stale of [lease("expired", Date.now() - 1), lease("killed", Date.now() + LEASE_MS, 2 ** 22 + 12345, hostname())]) {
      const kv = new MemoryKv();
      kv.values.set(KV_KEYS.lease("t"), stale);
      const held = await takeLease(kv, "t", { waitMs: 0 });
      expect(JSON.parse(kv.values.get(KV_KEYS.lease("t"))!)).toMatchObject({ pid: process.pid });
      await held.release();
    }
  });

  it("of two pushes that write their lease at once, the later write holds it and the other waits", async ({ expect }) => {
    const kv = new MemoryKv();
    // Right after our write, another push's lands (last write wins): our read-back sees theirs.
    const put = kv.put.bind(kv);
    kv.put = async (key, value) => {
      await put(key, value);
      if (key === KV_KEYS.lease("t")) kv.values.set(key, lease("other", Date.now() + LEASE_MS));
    };
    const taking = takeLease(kv, "t", { waitMs: 0, sleep: async () => {} });
    await expect(taking).rejects.toThrow(/another push of table t is under way/);
  });
});

describe("pushes and the history", () => {
  it("a push that got past the lease meanwhile keeps its history entry: the history is read again before it is written", async ({
    expect,
  }) => {
    const kv = new MemoryKv();
    const [first, other, ours] = [await planFor("a"), await planFor("b"), await planFor("c")];
    await pushTable(kv, first);
    // While our blob is written, another push (from far away, unseen by the lease) writes its history and pointer.
    kv.beforePut = async (key) => {
      if (key !== KV_KEYS.blob("t", ours.root.value.version)) return;
      kv.beforePut = undefined;
      kv.values.delete(KV_KEYS.lease("t"));
      await pushTable(kv, other);
    };
    await pushTable(kv, ours);
    expect((await readHistory(kv, "t")).entries.map((e) => e.version)).toEqual([
      ours.root.value.version,
      other.root.value.version,
      first.root.value.version,
    ]);
  });

  it("a corrupt history is rebuilt from the versions still stored, the served one first, and says so", async ({ expect }) => {
    const kv = new MemoryKv();
    const plans = [await planFor("a"), await planFor("b"), await planFor("c")];
    for (const plan of plans) await pushTable(kv, plan);
    kv.values.set(KV_KEYS.history("t"), "{ not json");
    const read = await readHistory(kv, "t");
    expect(read.problem).toBe("the history of table t is not JSON; rebuilt from the 3 versions still stored");
    expect(read.entries[0]).toMatchObject({ version: plans[2]!.root.value.version, rules: 1, backends: 1 });
    expect(read.entries.map((e) => e.version).sort()).toEqual(plans.map((p) => p.root.value.version).sort());
    // Rollback still has somewhere to go, and the next push writes a whole history again.
    const back = await rollbackTable(kv, "t", plans[0]!.root.value.version);
    expect(back).toMatchObject({ to: plans[0]!.root.value.version, historyProblem: expect.stringContaining("rebuilt") });
    const pushed = await pushTable(kv, await planFor("d"));
    expect(pushed.history).toHaveLength(4);
    expect((await readHistory(kv, "t")).problem).toBeUndefined();
  });

  it("a history that does not list the served version (emptied, or an older list) is rebuilt, keeping what it lists in order", async ({
    expect,
  }) => {
    const kv = new MemoryKv();
    const plans = [await planFor("a"), await planFor("b"), await planFor("c"), await planFor("d")];
    for (const plan of plans) await pushTable(kv, plan);
    const [a, b, c, d] = plans.map((p) => p.root.value.version) as [string, string, string, string];
    const written = (await readHistory(kv, "t")).entries;
    kv.values.set(KV_KEYS.history("t"), "[]");
    const emptied = await readHistory(kv, "t");
    expect(emptied.problem).toBe(
      `the history of table t does not list the version served (${d}); rebuilt from the 4 versions still stored`,
    );
    expect(emptied.entries[0]!.version).toBe(d);
    // An older list (without d): its entries keep their order and write times after the served one.
    kv.values.set(KV_KEYS.history("t"), JSON.stringify(written.filter((e) => e.version !== d)));
    const older = await readHistory(kv, "t");
    expect(older.entries.map((e) => e.version)).toEqual([d, c, b, a]);
    expect(older.entries.slice(1).map((e) => e.writtenAt)).toEqual(written.slice(1).map((e) => e.writtenAt));
    // Rollback goes to the version before the served one, as it would have with the whole history.
    expect(await rollbackTable(kv, "t", undefined, { dryRun: true })).toMatchObject({ to: c });
    kv.values.delete(KV_KEYS.history("t"));
    expect((await readHistory(kv, "t")).problem).toBe("the history of table t is missing; rebuilt from the 4 versions still stored");
  });
});
