/**
 * @module The table the edge serves, as a sync compares its new one against it: whole when it fits in this
 * process's memory beside the new one, else its outline, read a shard at a time. A million-route table is about
 * 500 MB once parsed: beside a million-route compile in a 2 GiB container's heap it does not fit, and reading it
 * anyway ended the process with V8's out-of-memory trace. The outline keeps what the large-drop check and the
 * history's summary need: which rules and hosts stay, go and come.
 */
import { getHeapStatistics } from "node:v8";
import { isSharded, type RouteTable } from "../../src/table/route-table";
import type { KvStore } from "./kv-store";
import { readShards, readStoredTable, SHARD_BATCH, wholeTable } from "./read-table";
import { type Tally, TableTally } from "../checks/table-tally";

/**
 * What reading a table whole and comparing it holds, as a multiple of its stored text's bytes: the parsed shards
 * and the joined table (a 100k-route table parsed: 1.5), and the sets and lists the large-drop check and the diff
 * make of it.
 */
const COMPARE_COST = 3;

/** The served table, as far as a sync compares it with the new one when the whole does not fit. */
export interface ServedOutline extends Tally {
  version: string;
  /** The parsed size the whole would have needed, and the heap there was for it. */
  needBytes: number;
  roomBytes: number;
}

/** The served table: none, whole, or outlined. */
export type ServedTable = { version: string; table: RouteTable } | { version: string; outline: ServedOutline } | null;

/** The heap this process has left (what is in use counts, garbage or not: the estimate errs small). */
export function heapRoom(): number {
  const heap = getHeapStatistics();
  return heap.heap_size_limit - heap.used_heap_size;
}

/**
 * Version `served` of the table (the one the edge serves), to compare `next` with: `next` itself when the versions
 * are the same (a version hashes the table's text), whole when it fits beside what this process holds, else its
 * outline; null when it cannot be read. `room`: the heap left (this process's, unless told).
 */
export async function readServed(
  kv: KvStore,
  name: string,
  served: string,
  next: RouteTable,
  room: () => number = heapRoom,
): Promise<ServedTable> {
  if (served === next.version) return { version: served, table: next };
  const stored = await readStoredTable(kv, name, served);
  if (!stored) return null;
  if (!isSharded(stored)) return { version: served, table: stored };
  const size = { needBytes: stored.shards.reduce((sum, s) => sum + s.bytes, 0) * COMPARE_COST, roomBytes: room() };
  if (size.needBytes <= size.roomBytes) {
    const table = await wholeTable(kv, name, stored);
    return table && { version: served, table };
  }
  const tally = new TableTally(next);
  for (let first = 0; first < stored.shards.length; first += SHARD_BATCH) {
    const count = Math.min(SHARD_BATCH, stored.shards.length - first);
    const shards = await readShards(kv, name, served, count, first);
    if (!shards) return null;
    for (const shard of shards) tally.see(shard);
  }
  return { version: served, outline: { version: served, ...tally.counts(), ...size } };
}

/**
 * Why a served table read as its outline was not compared in full, and the heap that would have held it: what is
 * in use counts garbage too, so that heap is an upper bound, and needs as much memory in the machine or container.
 */
export function tooBigToDiff({ outline }: { outline: ServedOutline }): { why: string; heap: string } {
  const gb = (bytes: number) => `${(bytes / 2 ** 30).toFixed(1)} GB`;
  const heapMiB = Math.ceil((getHeapStatistics().heap_size_limit + outline.needBytes - outline.roomBytes) / 2 ** 20);
  return {
    why: `the served table needs about ${gb(outline.needBytes)} to compare in full, and this process has ${gb(Math.max(0, outline.roomBytes))} left beside the new one`,
    heap: `a heap of up to ${heapMiB} MiB (NODE_OPTIONS=--max-old-space-size=${heapMiB}, in a machine or container with that much memory)`,
  };
}
