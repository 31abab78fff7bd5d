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
import { ruleKey } from "../checks/rule-key";
import { servedHosts } from "../report/diff-tables";
import { NAMED_LIMIT } from "../report/change-summary";

/**
 * What reading a table whole and comparing it holds, as a multiple of its stored text's bytes: the parsed shards
 * and the joined table (a 100k-route table parsed: 1.5), and the sets and lists the large-drop check and the diff
 * make of it.
 */
const COMPARE_COST = 3;

/** One kind of id (rule keys, hosts) in the served table and the new one. */
export interface OutlineCount {
  /** How many the served table has. */
  now: number;
  /** How many of those the new table keeps. */
  kept: number;
  /** How many the new table adds. */
  added: number;
  /** The first removed and added, as many as a summary names (NAMED_LIMIT). */
  someRemoved: string[];
  someAdded: string[];
}

/** The served table, as far as a sync compares it with the new one when the whole does not fit. */
export interface ServedOutline {
  version: string;
  rules: OutlineCount;
  hosts: OutlineCount;
  /** The parsed size the whole would have needed, and the heap there was for it. */
  needBytes: number;
  roomBytes: number;
}

/** The served table: none, whole, or outlined. */
export type ServedTable = { version: string; table: RouteTable } | { version: string; outline: ServedOutline } | null;

/** Counts one kind of id as the served table's pieces come, against the new table's. */
class IdTally {
  private readonly next = new Map<string, boolean>();
  private readonly removed = new Set<string>();
  private kept = 0;

  constructor(ids: Iterable<string>) {
    for (const id of ids) this.next.set(id, false);
  }

  see(id: string): void {
    const seen = this.next.get(id);
    if (seen === undefined) this.removed.add(id);
    else if (!seen) {
      this.next.set(id, true);
      this.kept++;
    }
  }

  count(): OutlineCount {
    const someAdded: string[] = [];
    for (const [id, seen] of this.next) if (!seen && someAdded.push(id) >= NAMED_LIMIT) break;
    return {
      now: this.kept + this.removed.size,
      kept: this.kept,
      added: this.next.size - this.kept,
      someRemoved: [...this.removed].slice(0, NAMED_LIMIT),
      someAdded,
    };
  }
}

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
  const rules = new IdTally(next.rules.map((r) => ruleKey(r.id)));
  const hosts = new IdTally(servedHosts(next));
  for (let first = 0; first < stored.shards.length; first += SHARD_BATCH) {
    const count = Math.min(SHARD_BATCH, stored.shards.length - first);
    const shards = await readShards(kv, name, served, count, first);
    if (!shards) return null;
    for (const shard of shards) {
      for (const rule of shard.rules) rules.see(ruleKey(rule.id));
      for (const host of servedHosts(shard)) hosts.see(host);
    }
  }
  return { version: served, outline: { version: served, rules: rules.count(), hosts: hosts.count(), ...size } };
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
