/**
 * @module Pushes a table atomically: blob ▸ read back ▸ history ▸ pointer ▸ prune. Until the pointer is
 * written the edge keeps serving the previous table, so a sync stopped at any point loses nothing.
 */
import { canonicalJson } from "../../src/table/canonical-json";
import { HISTORY_LIMIT, KV_KEYS } from "../../src/table/kv-keys";
import { parseRouteTable, parseTableHistory, parseTablePointer } from "../../src/table/parse-route-table";
import type { RouteTable, TableHistoryEntry, TablePointer } from "../../src/table/route-table";
import type { KvStore } from "./kv-store";
import { UserError } from "./user-error";

export interface PushOutcome {
  changed: boolean;
  version: string;
  previous?: string;
  pruned: string[];
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

export async function readTable(kv: KvStore, name: string, version: string): Promise<RouteTable | null> {
  const parsed = parseRouteTable(await readJson(kv, KV_KEYS.blob(name, version)));
  return parsed.ok && parsed.value.version === version ? parsed.value : null;
}

/** The table the edge serves now, if any. */
export async function readCurrentTable(kv: KvStore, name: string): Promise<RouteTable | null> {
  const pointer = await readPointer(kv, name);
  return pointer ? readTable(kv, name, pointer.version) : null;
}

function pointerFor(version: string, schemaVersion: number, now: Date): string {
  return JSON.stringify({ version, schemaVersion, updatedAt: now.toISOString() } satisfies TablePointer);
}

/** Writes the table unless the edge already serves exactly this version. */
export async function pushTable(kv: KvStore, table: RouteTable, now = new Date()): Promise<PushOutcome> {
  const pointer = await readPointer(kv, table.name);
  if (pointer?.version === table.version) return { changed: false, version: table.version, pruned: [] };
  const blobKey = KV_KEYS.blob(table.name, table.version);
  const text = canonicalJson(table);
  await kv.put(blobKey, text);
  const readBack = await kv.get(blobKey);
  if (readBack !== text) throw new Error(`read-back of ${blobKey} differs from what was written; the pointer was not moved`);
  const history = (await readHistory(kv, table.name)).filter((e) => e.version !== table.version);
  history.unshift({
    version: table.version,
    writtenAt: now.toISOString(),
    rules: table.rules.length,
    backends: Object.keys(table.backends).length,
  });
  const kept = history.slice(0, HISTORY_LIMIT);
  await kv.put(KV_KEYS.history(table.name), JSON.stringify(kept));
  await kv.put(KV_KEYS.current(table.name), pointerFor(table.version, table.schemaVersion, now));
  // Only after the pointer moved: drop blobs that fell out of the history (never the served one).
  const pruned = history
    .slice(HISTORY_LIMIT)
    .map((e) => e.version)
    .filter((v) => v !== table.version);
  for (const version of pruned) await kv.delete(KV_KEYS.blob(table.name, version));
  return { changed: true, version: table.version, previous: pointer?.version, pruned };
}

/** Moves the pointer to `version`, or to the version written before the current one. */
export async function rollbackTable(
  kv: KvStore,
  name: string,
  version: string | undefined,
  now = new Date(),
): Promise<{ from?: string; to: string }> {
  const pointer = await readPointer(kv, name);
  const history = await readHistory(kv, name);
  let target = version;
  if (target === undefined) {
    const at = history.findIndex((e) => e.version === pointer?.version);
    target = history[at + 1]?.version;
    if (target === undefined)
      throw new UserError(
        `table ${name} has no version before ${pointer?.version ?? "(none)"} to roll back to`,
        "list versions with `npm run sync -- --dry-run --json`; the history keeps the last 10",
      );
  }
  const table = await readTable(kv, name, target);
  if (!table) {
    const known = history.map((e) => e.version).join(", ") || "(none)";
    throw new UserError(`version ${target} of table ${name} is not stored (or is unreadable)`, `kept versions: ${known}`);
  }
  if (pointer?.version !== target) await kv.put(KV_KEYS.current(name), pointerFor(target, table.schemaVersion, now));
  return { from: pointer?.version, to: target };
}
