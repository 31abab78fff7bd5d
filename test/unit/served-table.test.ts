/**
 * The served table as a sync compares against it: whole when it fits in memory beside the new table, else its
 * outline, read a batch of shards at a time. The outline's counts are the whole table's, the large-drop check says
 * the same of both, and a push over an outline writes a history summary that says what it counted.
 */
import { describe, it } from "vitest";
import { largeDrop, largeDropFrom } from "../../scripts/checks/large-drop";
import { ruleKey } from "../../scripts/checks/table-tally";
import { servedHosts } from "../../scripts/report/diff-tables";
import { pushTable, readCurrentServed, readHistory } from "../../scripts/store/publish";
import { readTable, SHARD_BATCH } from "../../scripts/store/read-table";
import { readServed, type ServedOutline } from "../../scripts/store/served-table";
import type { RouteTable } from "../../src/table/route-table";
import { planStorage, type StoragePlan } from "../../src/table/shard-table";
import { compileYaml } from "../support/compile-fixture";
import { EDGE_YAML } from "../support/conformance-infra";
import { manyHostsYaml } from "../support/many-hosts";
import { MemoryKv } from "../support/memory-kv";

const PORTS = { v1: 1001, v2: 1002, v3: 1003 };

/** `routes` routes over 60 hosts and three wildcards, stored in shards of 8 KiB. */
async function plan(routes: number): Promise<StoragePlan> {
  const { table } = await compileYaml(EDGE_YAML, { c1: manyHostsYaml(PORTS, routes) });
  const planned = planStorage(table, { shardBytes: 8 * 1024 });
  if (!planned.ok) throw new Error(planned.problem);
  return planned.plan;
}

/** A store that records how many shards each bulk read asked for. */
class CountingKv extends MemoryKv {
  readonly shardReads: number[] = [];
  override getMany(keys: string[]): Promise<(string | null)[]> {
    const shards = keys.filter((k) => k.includes("/shard/")).length;
    if (shards > 0) this.shardReads.push(shards);
    return super.getMany(keys);
  }
}

/** What the whole tables say of rules and hosts kept, removed and added: what an outline must say too. */
function counts(current: RouteTable, next: RouteTable) {
  const tally = (now: Set<string>, then: Set<string>) => ({
    now: now.size,
    kept: [...now].filter((id) => then.has(id)).length,
    added: [...then].filter((id) => !now.has(id)).length,
  });
  const rules = (t: RouteTable) => new Set(t.rules.map((r) => ruleKey(r.id)));
  return { rules: tally(rules(current), rules(next)), hosts: tally(servedHosts(current), servedHosts(next)) };
}

const outlineCounts = (o: ServedOutline) => ({
  rules: { now: o.rules.now, kept: o.rules.kept, added: o.rules.added },
  hosts: { now: o.hosts.now, kept: o.hosts.kept, added: o.hosts.added },
});

describe("the served table a sync compares against", () => {
  it("is read whole when it fits, else as an outline that counts what the whole says, a batch of shards at a time", async ({ expect }) => {
    const kv = new CountingKv();
    const served = await plan(300);
    expect(served.shards.length).toBeGreaterThan(10);
    await pushTable(kv, served);
    const name = served.table.name;
    const fewer = (await plan(100)).table;
    const more = (await plan(310)).table;
    const whole = (await readTable(kv, name, served.table.version))!;

    const roomy = await readServed(kv, name, served.table.version, fewer, () => Number.POSITIVE_INFINITY);
    expect(roomy && "table" in roomy && roomy.table).toEqual(whole);

    kv.shardReads.length = 0;
    for (const next of [fewer, more]) {
      const tight = await readServed(kv, name, served.table.version, next, () => 0);
      if (!tight || !("outline" in tight)) throw new Error("expected an outline");
      expect(outlineCounts(tight.outline)).toEqual(counts(whole, next));
      // The large-drop check says the same of the outline as of the whole table: 200 of 300 rules gone is refused.
      expect(largeDropFrom(tight, next)).toBe(largeDrop(whole, next));
    }
    expect(largeDrop(whole, fewer)).toMatch(/^this push would remove 200 of 300 served rules and 0 of \d+ served hosts/);
    expect(largeDrop(whole, more)).toBeNull();
    expect(Math.max(...kv.shardReads)).toBe(SHARD_BATCH);
    expect(kv.shardReads.reduce((a, b) => a + b, 0)).toBe(2 * served.shards.length);
  });

  it("is nothing when a shard of it is missing, whole or outlined, as a table that cannot be read is", async ({ expect }) => {
    const kv = new MemoryKv();
    const served = await plan(300);
    await pushTable(kv, served);
    const next = (await plan(310)).table;
    await kv.delete(`table/${served.table.name}/${served.table.version}/shard/7`);
    for (const room of [() => Number.POSITIVE_INFINITY, () => 0])
      expect(await readCurrentServed(kv, served.table.name, next, room)).toBeNull();
  });

  it("a history rebuilt beside a sharded version counts it as its whole table, a batch of shards at a time", async ({ expect }) => {
    const kv = new CountingKv();
    const served = await plan(300);
    await pushTable(kv, served);
    const whole = (await readTable(kv, served.table.name, served.table.version))!;
    kv.values.set(`table/${served.table.name}/history`, "{ not json");
    kv.shardReads.length = 0;
    const rebuilt = await readHistory(kv, served.table.name);
    expect(rebuilt.problem).toMatch(/is not JSON; rebuilt from the 1 version still stored$/);
    expect(rebuilt.entries[0]).toMatchObject({ rules: whole.rules.length, backends: Object.keys(whole.backends).length });
    expect(whole.rules.length).toBeGreaterThan(served.shards.length);
    expect(Math.max(...kv.shardReads)).toBe(SHARD_BATCH);
  });

  it("is the new table itself when the edge serves that version, and nothing when none is served", async ({ expect }) => {
    const kv = new MemoryKv();
    const served = await plan(120);
    expect(await readCurrentServed(kv, served.table.name, served.table)).toBeNull();
    await pushTable(kv, served);
    const same = await readCurrentServed(kv, served.table.name, served.table);
    expect(same && "table" in same && same.table).toBe(served.table);
    expect(largeDropFrom(same, served.table)).toBeNull();
  });

  it("gives a push over an outline a history summary of the rules and hosts added and removed, saying how it counted", async ({
    expect,
  }) => {
    const kv = new MemoryKv();
    const served = await plan(300);
    await pushTable(kv, served);
    const next = await plan(303);
    const outline = await readServed(kv, served.table.name, served.table.version, next.table, () => 0);
    const pushed = await pushTable(kv, next, new Date(), { waitMs: 1000, served: outline });
    expect(pushed.changed).toBe(true);
    expect(pushed.summary).toBe(
      "3 rules added (counted by host and rule id only: the served table, 300 rules, was too big to diff beside 303 new rules during the sync)",
    );
  });
});
