/**
 * A rollback by hand is marked on the pointer and left in place by the watch until the config changes: the mark
 * names the version it undid (the first of several rollbacks in a row), a push ends it and says it replaced it,
 * going back to the undone version ends it too; the history keeps each version's summary and the one before it,
 * and entries written before the summary existed still read.
 */
import { describe, it } from "vitest";
import { pushTable, readHistory, readPointer } from "../../scripts/store/publish";
import { rollbackTable } from "../../scripts/store/rollback";
import { rollbackHold } from "../../scripts/watch/rollback-hold";
import { parseTableHistory } from "../../src/table/parse-route-table";
import { planStorage, type StoragePlan } from "../../src/table/shard-table";
import { KV_KEYS } from "../../src/table/kv-keys";
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

describe("a rollback by hand", () => {
  it("marks the pointer with the version it undid; a rollback of a rollback keeps the first; going back to it ends the mark", async ({
    expect,
  }) => {
    const kv = new MemoryKv();
    const [a, b, c] = [await planFor("a"), await planFor("b"), await planFor("c")];
    for (const plan of [a, b, c]) await pushTable(kv, plan);
    const [va, vb, vc] = [a, b, c].map((p) => p.root.value.version) as [string, string, string];

    const first = await rollbackTable(kv, "t", vb.slice(0, 6));
    expect(first).toMatchObject({ from: vc, to: vb, rolledBack: { from: vc, by: expect.stringMatching(/@.* pid \d+$/) } });
    expect((await readPointer(kv, "t"))?.rolledBack?.from).toBe(vc);

    const second = await rollbackTable(kv, "t", va);
    expect(second.rolledBack?.from).toBe(vc);

    const back = await rollbackTable(kv, "t", vc);
    expect(back.rolledBack).toBeUndefined();
    expect((await readPointer(kv, "t"))?.rolledBack).toBeUndefined();
  });

  it("a push ends the mark and says which rollback it replaced", async ({ expect }) => {
    const kv = new MemoryKv();
    const [a, b, d] = [await planFor("a"), await planFor("b"), await planFor("d")];
    for (const plan of [a, b]) await pushTable(kv, plan);
    await rollbackTable(kv, "t", undefined);
    const pushed = await pushTable(kv, d);
    expect(pushed.replacedRollback).toMatchObject({ version: a.root.value.version, from: b.root.value.version });
    expect((await readPointer(kv, "t"))?.rolledBack).toBeUndefined();
  });

  it("is left in place by a watch that would push what it undid, and pushed over once the table differs", async ({ expect }) => {
    const kv = new MemoryKv();
    const [a, b, c] = [await planFor("a"), await planFor("b"), await planFor("c")];
    for (const plan of [a, b]) await pushTable(kv, plan);
    const [va, vb] = [a.root.value.version, b.root.value.version];
    await rollbackTable(kv, "t", va);
    const pointer = await readPointer(kv, "t");
    // The watch that pushed b, or one started since (it knows only the mark), would push b again: hold.
    expect(rollbackHold(pointer, vb, vb)).toMatchObject({ to: va, from: vb });
    expect(rollbackHold(pointer, vb, undefined)).toMatchObject({ to: va });
    // The config changed: another table, pushed over the rollback.
    expect(rollbackHold(pointer, c.root.value.version, vb)).toBeNull();

    // Under the push's lease, the same question: held, nothing written.
    const held = await pushTable(kv, b, new Date(), { waitMs: 1000, holdFor: (p) => rollbackHold(p, vb, vb) });
    expect(held).toMatchObject({ changed: false, held: { to: va } });
    expect((await readPointer(kv, "t"))?.version).toBe(va);
    const over = await pushTable(kv, c, new Date(), { waitMs: 1000, holdFor: (p) => rollbackHold(p, c.root.value.version, vb) });
    expect(over).toMatchObject({ changed: true, replacedRollback: { version: va } });
  });
});

describe("the history's summaries", () => {
  it("keeps what each version changed and the version served before it", async ({ expect }) => {
    const kv = new MemoryKv();
    const [a, b] = [await planFor("a"), await planFor("b")];
    await pushTable(kv, a);
    const pushed = await pushTable(kv, b);
    const [newest, first] = (await readHistory(kv, "t")).entries;
    expect(first).toMatchObject({ summary: "first version: 1 rule, 1 backend" });
    expect(first?.previous).toBeUndefined();
    expect(newest).toMatchObject({ previous: a.root.value.version, summary: pushed.summary });
    expect(newest?.summary).toMatch(
      /^rule c1\/shop\/web\/rule\/0 changed; backend \S+\/shop\/b:8080 added; backend \S+\/shop\/a:8080 removed$/,
    );
  });

  it("entries written before summaries existed still read, and are listed without one", async ({ expect }) => {
    const old = [{ version: "0123456789abcdef0123", writtenAt: "2026-11-01T00:00:00.000Z", rules: 3, backends: 4 }];
    const parsed = parseTableHistory(old);
    expect(parsed).toEqual({ ok: true, value: old });
    const kv = new MemoryKv();
    kv.values.set(KV_KEYS.history("t"), JSON.stringify(old));
    kv.values.set(KV_KEYS.current("t"), JSON.stringify({ version: old[0]!.version, schemaVersion: 1, updatedAt: old[0]!.writtenAt }));
    expect((await readHistory(kv, "t")).entries).toEqual(old);
  });
});
