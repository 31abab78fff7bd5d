/**
 * @module Reading a kept version of a table back from KV: its stored value (the whole table, or the root of a
 * sharded one), its shards, or the whole table joined from them.
 */
import { joinShards } from "../../src/table/shard-table";
import { KV_KEYS } from "../../src/table/kv-keys";
import { parseRouteTable, parseStoredTable } from "../../src/table/parse-route-table";
import { isSharded, type RouteTable, type StoredTable } from "../../src/table/route-table";
import type { KvStore } from "./kv-store";
import { GET_BATCH_KEYS } from "./remote-kv";

/** A value's text as JSON: null when there is none, undefined when it is not JSON (present but corrupt). */
export function jsonText(text: string | null): unknown {
  if (text === null) return null;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** What `table/<name>/<version>` holds, if it is readable and of that version. */
export async function readStoredTable(kv: KvStore, name: string, version: string): Promise<StoredTable | null> {
  const parsed = parseStoredTable(jsonText(await kv.get(KV_KEYS.blob(name, version))));
  return parsed.ok && parsed.value.version === version ? parsed.value : null;
}

/**
 * Shards read a few at a time, each parsed as it comes: a million-route table's 360 shards read at once were
 * 360 MB of text held beside what they parse to. As many as one wrangler process reads (remote-kv.ts).
 */
export const SHARD_BATCH = GET_BATCH_KEYS;

/** Shards `first` to `first + count - 1` of a sharded version, or null when one is missing or unreadable. */
export async function readShards(kv: KvStore, name: string, version: string, count: number, first = 0): Promise<RouteTable[] | null> {
  const shards: RouteTable[] = [];
  for (let from = first; from < first + count; from += SHARD_BATCH) {
    const keys = Array.from({ length: Math.min(SHARD_BATCH, first + count - from) }, (_, i) => KV_KEYS.shard(name, version, from + i));
    for (const text of await kv.getMany(keys)) {
      const parsed = parseRouteTable(jsonText(text));
      if (!parsed.ok || parsed.value.version !== version) return null;
      shards.push(parsed.value);
    }
  }
  return shards;
}

/** A whole version (a sharded one joined from its shards), or null when any part is missing or unreadable. */
export async function readTable(kv: KvStore, name: string, version: string): Promise<RouteTable | null> {
  const stored = await readStoredTable(kv, name, version);
  return stored && wholeTable(kv, name, stored);
}

/** The whole table a stored value stands for: itself, or the table joined from the shards its root names. */
export async function wholeTable(kv: KvStore, name: string, stored: StoredTable): Promise<RouteTable | null> {
  if (!isSharded(stored)) return stored;
  const shards = await readShards(kv, name, stored.version, stored.shards.length);
  return shards && joinShards(stored, shards);
}

/**
 * How many rules and backends a stored version has, as its whole table would: a sharded one counted a batch of
 * shards at a time (the rules its matches use, and its backends, each once), not joined in memory.
 */
export async function storedCounts(kv: KvStore, name: string, stored: StoredTable): Promise<{ rules: number; backends: number } | null> {
  if (!isSharded(stored)) return { rules: stored.rules.length, backends: Object.keys(stored.backends).length };
  const rules = new Set<string>();
  const backends = new Set<string>();
  for (let first = 0; first < stored.shards.length; first += SHARD_BATCH) {
    const shards = await readShards(kv, name, stored.version, Math.min(SHARD_BATCH, stored.shards.length - first), first);
    if (!shards) return null;
    for (const shard of shards) {
      for (const match of shard.matches) rules.add(shard.rules[match.rule]!.id);
      for (const id of Object.keys(shard.backends)) backends.add(id);
    }
  }
  return { rules: rules.size, backends: backends.size };
}
