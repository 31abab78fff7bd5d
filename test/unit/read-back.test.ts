/**
 * A push reads back what it wrote before it moves the pointer: a store that lost or changed a value fails the push
 * naming the key, and the edge keeps what it served. A store that can tell each value's digest where it keeps the
 * values (local state) is asked for digests instead of the values.
 */
import { createHash } from "node:crypto";
import { describe, it } from "vitest";
import { pushTable, readPointer } from "../../scripts/store/publish";
import { StorageError } from "../../scripts/lib/user-error";
import { planStorage, type StoragePlan } from "../../src/table/shard-table";
import { compileYaml } from "../support/compile-fixture";
import { EDGE_YAML } from "../support/conformance-infra";
import { manyHostsYaml } from "../support/many-hosts";
import { MemoryKv } from "../support/memory-kv";

/** A table of many shards: more than one round of values read back. */
async function shardedPlan(): Promise<StoragePlan> {
  const { table } = await compileYaml(EDGE_YAML, { c1: manyHostsYaml({ v1: 1001, v2: 1002, v3: 1003 }, 300) });
  const planned = planStorage(table, { shardBytes: 8 * 1024 });
  if (!planned.ok) throw new Error(planned.problem);
  return planned.plan;
}

/** Memory that stores one key's value with its last character lost, and records the keys read in bulk. */
class LossyKv extends MemoryKv {
  readonly keysRead: string[] = [];
  constructor(readonly loses?: (key: string) => boolean) {
    super();
  }
  override async put(key: string, value: string): Promise<void> {
    await super.put(key, this.loses?.(key) ? value.slice(0, -1) : value);
  }
  override getMany(keys: string[]): Promise<(string | null)[]> {
    this.keysRead.push(...keys);
    return super.getMany(keys);
  }
}

/** The same, able to tell digests of what it holds. */
class DigestingKv extends LossyKv {
  digestsTold = 0;
  async digestMany(keys: string[]): Promise<(string | null)[]> {
    this.digestsTold += keys.length;
    return keys.map((key) => {
      const value = this.values.get(key);
      return value === undefined ? null : createHash("sha256").update(value).digest("hex");
    });
  }
}

describe("the read-back of a push", () => {
  for (const Store of [LossyKv, DigestingKv])
    it(`fails on a value the store changed, naming it, and the pointer stays (${Store.name})`, async ({ expect }) => {
      const plan = await shardedPlan();
      expect(plan.shards.length).toBeGreaterThan(10);
      const kv = new Store((key) => key.endsWith("/shard/11"));
      const push = pushTable(kv, plan);
      await expect(push).rejects.toThrow(StorageError);
      await expect(push).rejects.toThrow(
        `read-back of table/${plan.table.name}/${plan.table.version}/shard/11 differs from what was written`,
      );
      expect(await readPointer(kv, plan.table.name)).toBeNull();
    });

  it("asks a store that tells digests for those, not the values, and pushes what reads back whole", async ({ expect }) => {
    const plan = await shardedPlan();
    const kv = new DigestingKv();
    const outcome = await pushTable(kv, plan);
    expect(outcome).toMatchObject({ changed: true, version: plan.table.version });
    expect(await readPointer(kv, plan.table.name)).toMatchObject({ version: plan.table.version });
    // Every shard and the root: told as digests, none read back as a value.
    expect(kv.digestsTold).toBe(plan.shards.length + 1);
    expect(kv.keysRead.filter((key) => key.includes(plan.table.version))).toEqual([]);
  });
});
