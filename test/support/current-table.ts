/** @module The whole table a store's pointer names: what the tests compare with what they pushed. */
import type { KvStore } from "../../scripts/store/kv-store";
import { readPointer } from "../../scripts/store/publish";
import { readTable } from "../../scripts/store/read-table";
import type { RouteTable } from "../../src/table/route-table";

export async function readCurrentTable(kv: KvStore, name: string): Promise<RouteTable | null> {
  const pointer = await readPointer(kv, name);
  return pointer && readTable(kv, name, pointer.version);
}
