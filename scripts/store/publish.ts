/**
 * @module Pushes a table atomically: lease ▸ shards ▸ blob (each read back) ▸ history ▸ pointer ▸ prune ▸
 * release. Until the pointer is written the edge keeps serving the previous table, so a sync stopped at any
 * point loses nothing; pushes of one table take turns (the lease), and none loses another's history entry.
 */
import { joinShards, type StoragePlan } from "../../src/table/shard-table";
import { HISTORY_LIMIT, KV_KEYS } from "../../src/table/kv-keys";
import { parseRouteTable, parseStoredTable, parseTableHistory, parseTablePointer } from "../../src/table/parse-route-table";
import { isSharded, type RouteTable, type StoredTable, type TableHistoryEntry, type TablePointer } from "../../src/table/route-table";
import type { KvStore } from "./kv-store";
import { type LeaseOptions, takeLease } from "./push-lease";
import { StorageError, UserError } from "../lib/user-error";

export interface PushOutcome {
  changed: boolean;
  version: string;
  previous?: string;
  pruned: string[];
  /** The table's history after the push, newest first (what a push wrote; not read again). */
  history: TableHistoryEntry[];
  /** The stored history was unreadable and was rebuilt (what was wrong). */
  historyProblem?: string;
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
  return parsePointerText(await kv.get(KV_KEYS.current(name)));
}

function parsePointerText(text: string | null): TablePointer | null {
  let value: unknown = null;
  try {
    value = text === null ? null : JSON.parse(text);
  } catch {
    return null;
  }
  const parsed = parseTablePointer(value);
  return parsed.ok ? parsed.value : null;
}

/** The kept versions, and what was wrong with the stored list when it had to be rebuilt. */
export interface HistoryRead {
  entries: TableHistoryEntry[];
  /** Set when the stored history was unreadable: it was rebuilt from the versions still stored. */
  problem?: string;
}

/**
 * The table's history. One that is present but unreadable is not taken for empty (that would lose every
 * earlier version, and rollback with it), nor is one that does not list the version the pointer names
 * (an emptied or older list): either is rebuilt from the versions still stored, the problem said.
 * `known` holds the history's text and the pointer when the caller has just read them.
 */
export async function readHistory(
  kv: KvStore,
  name: string,
  known: { text?: string | null; pointer?: TablePointer | null } = {},
): Promise<HistoryRead> {
  const stored = known.text === undefined ? await kv.get(KV_KEYS.history(name)) : known.text;
  const served = known.pointer === undefined ? await readPointer(kv, name) : known.pointer;
  if (stored === null && served === null) return { entries: [] };
  let value: unknown;
  try {
    value = stored === null ? [] : JSON.parse(stored);
  } catch {
    value = undefined;
  }
  const parsed = parseTableHistory(value);
  if (parsed.ok && (served === null || parsed.value.some((e) => e.version === served.version))) return { entries: parsed.value };
  let why: string;
  if (stored === null) why = "is missing";
  else if (value === undefined) why = "is not JSON";
  else if (!parsed.ok) why = parsed.reason;
  else why = `does not list the version served (${served!.version})`;
  const entries = await rebuildHistory(kv, name, served, parsed.ok ? parsed.value : []);
  return { entries, problem: `the history of table ${name} ${why}; rebuilt from the ${entries.length} versions still stored` };
}

/**
 * History entries for every version of the table still stored: the served one first, then those the
 * readable part of the old history lists (in its order, with its times), then the others (their write
 * times are unknown).
 */
async function rebuildHistory(
  kv: KvStore,
  name: string,
  pointer: TablePointer | null,
  known: TableHistoryEntry[],
): Promise<TableHistoryEntry[]> {
  const prefix = KV_KEYS.tablePrefix(name);
  const special = new Set([KV_KEYS.current(name), KV_KEYS.history(name), KV_KEYS.lease(name)]);
  const versions = (await kv.list(prefix))
    .filter((key) => !special.has(key) && !key.slice(prefix.length).includes("/"))
    .map((key) => key.slice(prefix.length));
  const entries: TableHistoryEntry[] = [];
  for (const version of versions) {
    const [stored, table] = [await readStoredTable(kv, name, version), await readTable(kv, name, version)];
    if (!stored || !table) continue; // a partial version (a push stopped midway) is no rollback target
    const listed = known.find((e) => e.version === version);
    entries.push({
      version,
      writtenAt: version === pointer?.version ? pointer.updatedAt : (listed?.writtenAt ?? ""),
      rules: table.rules.length,
      backends: Object.keys(table.backends).length,
      ...(isSharded(stored) ? { shards: stored.shards.length } : {}),
    });
  }
  const rank = (e: TableHistoryEntry) => {
    if (e.version === pointer?.version) return -1;
    const at = known.findIndex((k) => k.version === e.version);
    return at === -1 ? known.length : at;
  };
  return entries.sort((a, b) => rank(a) - rank(b));
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
    if (readBack[i] !== text)
      throw new StorageError(
        `read-back of ${key} differs from what was written; the pointer was not moved`,
        "another writer may be writing the same keys, or the store lost the write: run the sync again",
      );
  });
}

function pointerFor(version: string, schemaVersion: number, now: Date): string {
  return JSON.stringify({ version, schemaVersion, updatedAt: now.toISOString() } satisfies TablePointer);
}

/** How long a push waits for another push of the same table before it gives up (exit 2). */
export const PUSH_WAIT_MS = 120_000;

/**
 * Writes the planned table unless the edge already serves exactly this version, holding the table's push
 * lease (see push-lease.ts) so that concurrent pushes take turns.
 */
export async function pushTable(
  kv: KvStore,
  plan: StoragePlan,
  now = new Date(),
  guard: Omit<LeaseOptions, "readWith"> = { waitMs: PUSH_WAIT_MS },
): Promise<PushOutcome> {
  const root = plan.root.value;
  const name = root.name;
  const lease = await takeLease(kv, name, { ...guard, readWith: [KV_KEYS.current(name), KV_KEYS.history(name)] });
  try {
    const [pointerText, historyText] = lease.values;
    const pointer = parsePointerText(pointerText ?? null);
    if (pointer?.version === root.version) {
      const read = await readHistory(kv, name, { text: historyText ?? null, pointer });
      return {
        changed: false,
        version: root.version,
        pruned: [],
        history: read.entries,
        ...(read.problem ? { historyProblem: read.problem } : {}),
      };
    }
    // Shards first: a root (and later the pointer) never names a shard that is not stored yet.
    if (plan.shards.length > 0)
      await putVerified(
        kv,
        plan.shards.map((shard, i) => [KV_KEYS.shard(name, root.version, i), shard.text]),
      );
    await putVerified(kv, [[KV_KEYS.blob(name, root.version), plan.root.text]]);
    // Read again right before it is written: a push that got past the lease meanwhile keeps its entry.
    const read = await readHistory(kv, name, { pointer });
    const history = read.entries.filter((e) => e.version !== root.version);
    history.unshift({
      version: root.version,
      writtenAt: now.toISOString(),
      rules: plan.table.rules.length,
      backends: Object.keys(plan.table.backends).length,
      ...(plan.shards.length > 0 ? { shards: plan.shards.length } : {}),
    });
    const kept = history.slice(0, HISTORY_LIMIT);
    await kv.put(KV_KEYS.history(name), JSON.stringify(kept));
    await kv.put(KV_KEYS.current(name), pointerFor(root.version, root.schemaVersion, now));
    // Only after the pointer moved: drop versions that fell out of the history, never one a pointer names.
    let dropped = history.slice(HISTORY_LIMIT).filter((e) => e.version !== root.version);
    if (dropped.length > 0) {
      const served = (await readPointer(kv, name))?.version;
      dropped = dropped.filter((e) => e.version !== served);
    }
    for (const entry of dropped) {
      await kv.delete(KV_KEYS.blob(name, entry.version));
      for (let i = 0; i < (entry.shards ?? 0); i++) await kv.delete(KV_KEYS.shard(name, entry.version, i));
    }
    return {
      changed: true,
      version: root.version,
      previous: pointer?.version,
      pruned: dropped.map((e) => e.version),
      history: kept,
      ...(read.problem ? { historyProblem: read.problem } : {}),
    };
  } finally {
    await lease.release();
  }
}

/** Moves the pointer to `version`, or to the version written before the current one. */
export async function rollbackTable(
  kv: KvStore,
  name: string,
  version: string | undefined,
  now = new Date(),
  dryRun = false,
): Promise<{ from?: string; to: string; table: RouteTable; current: RouteTable | null; historyProblem?: string }> {
  // A rollback moves the pointer: it takes its turn with pushes (a dry run only reads).
  const lease = dryRun ? null : await takeLease(kv, name, { waitMs: PUSH_WAIT_MS });
  try {
    return await rollbackHeld(kv, name, version, now, dryRun);
  } finally {
    await lease?.release();
  }
}

async function rollbackHeld(
  kv: KvStore,
  name: string,
  version: string | undefined,
  now: Date,
  dryRun: boolean,
): Promise<{ from?: string; to: string; table: RouteTable; current: RouteTable | null; historyProblem?: string }> {
  const pointer = await readPointer(kv, name);
  const read = await readHistory(kv, name, { pointer });
  const history = read.entries;
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
  return { from: pointer?.version, to: target, table, current, ...(read.problem ? { historyProblem: read.problem } : {}) };
}
