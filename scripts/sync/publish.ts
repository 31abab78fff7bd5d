/**
 * @module Pushes a table atomically: shards ▸ blob (each read back) ▸ history ▸ pointer ▸ prune. Until the
 * pointer is written the edge keeps serving the previous table, so a sync stopped at any point loses nothing.
 */
import { joinShards, type StoragePlan } from "../../src/compile/shard-table";
import { HISTORY_LIMIT, KV_KEYS } from "../../src/table/kv-keys";
import { parseRouteTable, parseStoredTable, parseTableHistory, parseTablePointer } from "../../src/table/parse-route-table";
import { isSharded, type RouteTable, type StoredTable, type TableHistoryEntry, type TablePointer } from "../../src/table/route-table";
import type { KvStore } from "./kv-store";
import { UserError } from "./user-error";

export interface PushOutcome {
  changed: boolean;
  version: string;
  previous?: string;
  pruned: string[];
  /** The table's history after the push, newest first (what a push wrote; not read again). */
  history: TableHistoryEntry[];
}

async function readJson(kv: KvStore, key: string): Promise<unknown> {
  const text = await kv.get(key);
  if (text === null) return null;
  try {
    return JSON.parse(text);
  } catch {
    return undefined; // present but corrupt
  }
}

export async function readPointer(kv: KvStore, name: string): Promise<TablePointer | null> {
  const parsed = parseTablePointer(await readJson(kv, KV_KEYS.current(name)));
  return parsed.ok ? parsed.value : null;
}

export async function readHistory(kv: KvStore, name: string): Promise<TableHistoryEntry[]> {
  const parsed = parseTableHistory(await readJson(kv, KV_KEYS.history(name)));
  return parsed.ok ? parsed.value : [];
}

/** What `table/<name>/<version>` holds, if it is readable and of that version. */
export async function readStoredTable(kv: KvStore, name: string, version: string): Promise<StoredTable | null> {
  const parsed = parseStoredTable(await readJson(kv, KV_KEYS.blob(name, version)));
  return parsed.ok && parsed.value.version === version ? parsed.value : null;
}

/** The shards of a sharded version, or null when one is missing or unreadable. */
async function readShards(kv: KvStore, name: string, version: string, count: number): Promise<RouteTable[] | null> {
  const texts = await kv.getMany(Array.from({ length: count }, (_, i) => KV_KEYS.shard(name, version, i)));
  const shards: RouteTable[] = [];
  for (const text of texts) {
    let value: unknown = null;
    try {
      value = text === null ? null : JSON.parse(text);
    } catch {
      return null;
    }
    const parsed = parseRouteTable(value);
    if (!parsed.ok || parsed.value.version !== version) return null;
    shards.push(parsed.value);
  }
  return shards;
}

/** A whole version (a sharded one joined from its shards), or null when any part is missing or unreadable. */
export async function readTable(kv: KvStore, name: string, version: string): Promise<RouteTable | null> {
  const stored = await readStoredTable(kv, name, version);
  if (!stored || !isSharded(stored)) return stored;
  const shards = await readShards(kv, name, version, stored.shards.length);
  return shards && joinShards(stored, shards);
}

/** The table the edge serves now, if any. */
export async function readCurrentTable(kv: KvStore, name: string): Promise<RouteTable | null> {
  const pointer = await readPointer(kv, name);
  return pointer ? readTable(kv, name, pointer.version) : null;
}

/** Writes values (in bulk) and reads them back: what KV returns must be exactly what was written. */
async function putVerified(kv: KvStore, entries: [key: string, text: string][]): Promise<void> {
  await kv.putMany(entries);
  const readBack = await kv.getMany(entries.map(([key]) => key));
  entries.forEach(([key, text], i) => {
    if (readBack[i] !== text) throw new Error(`read-back of ${key} differs from what was written; the pointer was not moved`);
  });
}

function pointerFor(version: string, schemaVersion: number, now: Date): string {
  return JSON.stringify({ version, schemaVersion, updatedAt: now.toISOString() } satisfies TablePointer);
}

/** Writes the planned table unless the edge already serves exactly this version. */
export async function pushTable(kv: KvStore, plan: StoragePlan, now = new Date()): Promise<PushOutcome> {
  const root = plan.root.value;
  const pointer = await readPointer(kv, root.name);
  if (pointer?.version === root.version) {
    return { changed: false, version: root.version, pruned: [], history: await readHistory(kv, root.name) };
  }
  // Shards first: a root (and later the pointer) never names a shard that is not stored yet.
  if (plan.shards.length > 0)
    await putVerified(
      kv,
      plan.shards.map((shard, i) => [KV_KEYS.shard(root.name, root.version, i), shard.text]),
    );
  await putVerified(kv, [[KV_KEYS.blob(root.name, root.version), plan.root.text]]);
  const history = (await readHistory(kv, root.name)).filter((e) => e.version !== root.version);
  history.unshift({
    version: root.version,
    writtenAt: now.toISOString(),
    rules: plan.table.rules.length,
    backends: Object.keys(plan.table.backends).length,
    ...(plan.shards.length > 0 ? { shards: plan.shards.length } : {}),
  });
  const kept = history.slice(0, HISTORY_LIMIT);
  await kv.put(KV_KEYS.history(root.name), JSON.stringify(kept));
  await kv.put(KV_KEYS.current(root.name), pointerFor(root.version, root.schemaVersion, now));
  // Only after the pointer moved: drop versions that fell out of the history (never the served one).
  const dropped = history.slice(HISTORY_LIMIT).filter((e) => e.version !== root.version);
  for (const entry of dropped) {
    await kv.delete(KV_KEYS.blob(root.name, entry.version));
    for (let i = 0; i < (entry.shards ?? 0); i++) await kv.delete(KV_KEYS.shard(root.name, entry.version, i));
  }
  return { changed: true, version: root.version, previous: pointer?.version, pruned: dropped.map((e) => e.version), history: kept };
}

/** Moves the pointer to `version`, or to the version written before the current one. */
export async function rollbackTable(
  kv: KvStore,
  name: string,
  version: string | undefined,
  now = new Date(),
  dryRun = false,
): Promise<{ from?: string; to: string; table: RouteTable; current: RouteTable | null }> {
  const pointer = await readPointer(kv, name);
  const history = await readHistory(kv, name);
  let target = version;
  if (target === undefined) {
    const at = history.findIndex((e) => e.version === pointer?.version);
    target = history[at + 1]?.version;
    if (target === undefined)
      throw new UserError(
        pointer
          ? `table ${name} has no version before ${pointer.version} to roll back to`
          : `table ${name} was never written here: nothing to roll back to`,
        "list the kept versions with `kedge history` (the last 10 are kept)",
      );
  }
  // Every part must still be readable: a version with a missing shard is not one to point the edge at.
  const table = await readTable(kv, name, target);
  if (!table) {
    const known = history.map((e) => e.version).join(", ") || "(none)";
    throw new UserError(`version ${target} of table ${name} is not stored (or is unreadable)`, `kept versions: ${known}`);
  }
  const current = pointer ? await readTable(kv, name, pointer.version) : null;
  if (!dryRun && pointer?.version !== target) await kv.put(KV_KEYS.current(name), pointerFor(target, table.schemaVersion, now));
  return { from: pointer?.version, to: target, table, current };
}
