/**
 * A canary as the CLI writes and reads it in KV: `sync --canary` writes the pointer naming both versions (a first
 * push cannot be one), pushing the canary again writes nothing, any other push ends it (superseded); `promote`
 * and `rollback` end it by hand; a decision of the edge (its record) is the pointer every command acts on, and a
 * reverted canary is held by `sync --watch` exactly as a rollback by hand.
 */
import { describe, it } from "vitest";
import { readCanaryRecord } from "../../scripts/store/canary-store";
import { promoteCanary } from "../../scripts/store/promote";
import { pushTable, readHistory, readPointer } from "../../scripts/store/publish";
import { rollbackTable } from "../../scripts/store/rollback";
import { rollbackHold } from "../../scripts/watch/rollback-hold";
import { type CanaryRecord, EDGE_ANALYSIS } from "../../src/table/canary";
import { KV_KEYS } from "../../src/table/kv-keys";
import { planStorage, type StoragePlan } from "../../src/table/shard-table";
import { compileYaml } from "../support/compile-fixture";
import { edgeConfig, gatewayAndRoute, service, yamlDocs } from "../support/manifests";
import { MemoryKv } from "../support/memory-kv";

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

const CANARY = { percent: 10, analysis: { windowMs: 300_000, minRequests: 100, maxErrorRateIncrease: 0.02 } };

async function twoVersions() {
  const kv = new MemoryKv();
  const [s, c] = [await planFor("stable"), await planFor("next")];
  await pushTable(kv, s);
  const pushed = await pushTable(kv, c, new Date(), { waitMs: 1000, canary: CANARY });
  return { kv, s: s.root.value.version, c: c.root.value.version, pushed };
}

describe("a canary in KV, as the CLI keeps it", () => {
  it("sync --canary names both versions in the pointer; the canary's history entry says so; pushing it again writes nothing", async ({
    expect,
  }) => {
    const { kv, s, c, pushed } = await twoVersions();
    expect(pushed).toMatchObject({ changed: true, version: c, previous: s, canary: { version: c, percent: 10 } });
    const pointer = await readPointer(kv, "t");
    expect(pointer).toMatchObject({ version: s, canary: { version: c, percent: 10, analysis: CANARY.analysis } });
    const history = (await readHistory(kv, "t")).entries;
    expect(history[0]).toMatchObject({ version: c, previous: s, canary: { id: pointer!.canary!.id, percent: 10 } });
    const again = await pushTable(kv, await planFor("next"), new Date(), { waitMs: 1000, canary: CANARY });
    expect(again).toMatchObject({ changed: false, canary: { version: c } });
  });

  it("a first push cannot be a canary: it goes out as the current version and says why", async ({ expect }) => {
    const kv = new MemoryKv();
    const first = await pushTable(kv, await planFor("stable"), new Date(), { waitMs: 1000, canary: CANARY });
    expect(first.canary).toBeUndefined();
    expect(first.canaryRefused).toMatch(/no version is served yet/);
    expect((await readPointer(kv, "t"))?.canary).toBeUndefined();
  });

  it("a push ends the canary in progress: superseded, in its record", async ({ expect }) => {
    const { kv, s, c } = await twoVersions();
    const id = (await readPointer(kv, "t"))!.canary!.id;
    const other = await planFor("other");
    const pushed = await pushTable(kv, other);
    expect(pushed).toMatchObject({ changed: true, previous: s, supersededCanary: c });
    expect(await readPointer(kv, "t")).toMatchObject({ version: other.root.value.version });
    expect((await readPointer(kv, "t"))!.canary).toBeUndefined();
    expect((await readCanaryRecord(kv, "t", id))?.ended).toMatchObject({
      outcome: "superseded",
      by: expect.stringMatching(/^kedge sync \(/),
    });
  });

  it("kedge promote makes the canary current; without a canary it has nothing to do", async ({ expect }) => {
    const { kv, s, c } = await twoVersions();
    const id = (await readPointer(kv, "t"))!.canary!.id;
    expect(await promoteCanary(kv, "t")).toMatchObject({ kind: "promoted", from: s, canary: { version: c } });
    expect(await readPointer(kv, "t")).toMatchObject({ version: c });
    expect((await readCanaryRecord(kv, "t", id))?.ended).toMatchObject({
      outcome: "promoted",
      by: expect.stringMatching(/^kedge promote \(/),
    });
    expect(await promoteCanary(kv, "t")).toEqual({ kind: "none", served: c });
  });

  it("kedge rollback reverts the canary: the current version stays, marked as rolled back from the canary's", async ({ expect }) => {
    const { kv, s, c } = await twoVersions();
    const id = (await readPointer(kv, "t"))!.canary!.id;
    const rolled = await rollbackTable(kv, "t", undefined);
    expect(rolled).toMatchObject({ from: c, to: s, revertedCanary: c, rolledBack: { from: c } });
    const pointer = await readPointer(kv, "t");
    expect(pointer).toMatchObject({ version: s, rolledBack: { from: c } });
    expect(pointer!.canary).toBeUndefined();
    expect((await readCanaryRecord(kv, "t", id))?.ended).toMatchObject({
      outcome: "reverted",
      by: expect.stringMatching(/^kedge rollback \(/),
    });
  });

  it("kedge rollback after a reverted canary and a new push goes back to the version served before, not to the canary", async ({
    expect,
  }) => {
    const { kv, s, c } = await twoVersions();
    await rollbackTable(kv, "t", undefined);
    const next = await planFor("third");
    await pushTable(kv, next);
    expect((await readHistory(kv, "t")).entries.map((e) => e.version)).toEqual([next.root.value.version, c, s]);
    const rolled = await rollbackTable(kv, "t", undefined, { dryRun: true });
    expect(rolled).toMatchObject({ from: next.root.value.version, to: s });
    // Named, the canary's version is still one to go to.
    expect(await rollbackTable(kv, "t", c.slice(0, 8), { dryRun: true })).toMatchObject({ to: c });
  });

  it("kedge rollback after the served version is pushed again (ending a canary) still goes to the one served before it", async ({
    expect,
  }) => {
    const kv = new MemoryKv();
    const [z, a, b] = [await planFor("zero"), await planFor("stable"), await planFor("next")];
    await pushTable(kv, z);
    await pushTable(kv, a);
    await pushTable(kv, b, new Date(), { waitMs: 1000, canary: CANARY });
    const again = await pushTable(kv, await planFor("stable"));
    expect(again).toMatchObject({ supersededCanary: b.root.value.version });
    const entry = (await readHistory(kv, "t")).entries[0]!;
    expect(entry).toMatchObject({ version: a.root.value.version, previous: z.root.value.version });
    expect(await rollbackTable(kv, "t", undefined, { dryRun: true })).toMatchObject({ to: z.root.value.version });
  });

  it("the edge's decision in the record is the pointer every command acts on; a reverted canary holds sync --watch", async ({ expect }) => {
    const { kv, s, c } = await twoVersions();
    const spec = (await readPointer(kv, "t"))!.canary!;
    const reverted: CanaryRecord = {
      canary: spec,
      current: s,
      ended: { outcome: "reverted", at: new Date().toISOString(), by: EDGE_ANALYSIS, reason: "canary 100 of 100 failed" },
    };
    await kv.put(KV_KEYS.canary("t", spec.id), JSON.stringify(reverted));
    const pointer = await readPointer(kv, "t");
    expect(pointer).toMatchObject({ version: s, rolledBack: { from: c, by: EDGE_ANALYSIS } });
    // The watch that pushed the canary, and one started after, both leave it reverted until the config changes.
    expect(rollbackHold(pointer, c, c)).toMatchObject({ from: c, to: s });
    expect(rollbackHold(pointer, c, undefined)).toMatchObject({ from: c, to: s });
    expect(rollbackHold(pointer, "f".repeat(20), c)).toBeNull();
    expect(await promoteCanary(kv, "t")).toMatchObject({ kind: "ended", end: { outcome: "reverted", by: EDGE_ANALYSIS } });
    // The next push folds the decision into the pointer.
    const d = await planFor("third");
    await pushTable(kv, d);
    expect(JSON.parse((await kv.get(KV_KEYS.current("t")))!)).toEqual({
      version: d.root.value.version,
      schemaVersion: 1,
      updatedAt: expect.any(String),
    });
  });
});
