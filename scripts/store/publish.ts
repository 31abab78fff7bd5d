/**
 * @module Pushes a table atomically: (the local state's lock ▸) lease ▸ shards ▸ blob (each read back) ▸
 * history ▸ pointer ▸ prune ▸ release. Until the pointer is written the edge keeps serving the previous table,
 * so a sync stopped at any point loses nothing; pushes of one table take turns (the lease), and none loses
 * another's history entry. Each entry keeps a one-line summary of what its version changed from the one served
 * before it. Reading the pointer, the history and kept versions is here too (rollback.ts moves the pointer back).
 * A push with `canary` writes the pointer naming both versions: the current one stays, the new one gets the
 * canary's share until the edge (or `kedge promote`/`rollback`) ends it; any push ends a canary in progress.
 */
import { createHash } from "node:crypto";
import type { StoragePlan } from "../../src/table/shard-table";
import { HISTORY_LIMIT, KV_KEYS } from "../../src/table/kv-keys";
import { parseTableHistory, parseTablePointer } from "../../src/table/parse-route-table";
import { isSharded, type RollbackMarker, type RouteTable, type TableHistoryEntry, type TablePointer } from "../../src/table/route-table";
import { asWriter, type KvStore } from "./kv-store";
import { jsonText, readStoredTable, storedCounts } from "./read-table";
import { readServed, type ServedTable } from "./served-table";
import { byCommand, type CanarySettings, endCanary, newCanary, type PointerRead, resolvePointer } from "./canary-store";
import type { CanaryPointer } from "../../src/table/canary";
import { type LeaseOptions, takeLease } from "./push-lease";
import { StorageError } from "../lib/user-error";
import { diffTables } from "../report/diff-tables";
import { changeSummary, firstVersionSummary, outlineSummary } from "../report/change-summary";
import { count } from "../report/report";

/** A rollback by hand a push leaves in place (PushOptions.holdFor): the mark, and the version it went back to. */
export type RollbackHold = RollbackMarker & { to: string };

export interface PushOutcome {
  changed: boolean;
  version: string;
  previous?: string;
  /** What this version changes from the one served before it (the history entry's summary), when written. */
  summary?: string;
  /** The rollback by hand this push replaced: the pointer named a version `kedge rollback` moved it to. */
  replacedRollback?: RollbackMarker & { version: string };
  /** Set when nothing was written because `holdFor` left a rollback by hand in place. */
  held?: RollbackHold;
  /** The canary this push started: the edge serves it to its share beside `previous`. */
  canary?: CanaryPointer;
  /** Why a push asked to be a canary went out as the current version instead (nothing served yet). */
  canaryRefused?: string;
  /** The canary in progress this push ended (superseded): its version. */
  supersededCanary?: string;
  pruned: string[];
  /** The table's history after the push, newest first (what a push wrote; not read again). */
  history: TableHistoryEntry[];
  /** The stored history was unreadable and was rebuilt (what was wrong). */
  historyProblem?: string;
}

/** The pointer in force (a canary its record says ended folded in), or null when the table was never written. */
export async function readPointer(kv: KvStore, name: string): Promise<TablePointer | null> {
  return (await readPointerWithCanary(kv, name))?.pointer ?? null;
}

/** The pointer in force, with the canary in progress (and its record) or the one that just ended. */
export async function readPointerWithCanary(kv: KvStore, name: string): Promise<PointerRead | null> {
  const stored = parsePointerText(await kv.get(KV_KEYS.current(name)));
  return stored ? resolvePointer(kv, name, stored) : null;
}

function parsePointerText(text: string | null): TablePointer | null {
  const parsed = parseTablePointer(jsonText(text));
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
  return { entries, problem: `the history of table ${name} ${why}; rebuilt from the ${count(entries.length, "version")} still stored` };
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
    const stored = await readStoredTable(kv, name, version);
    // Counted, not read whole: a push may rebuild the history beside a million-route compile.
    const counts = stored && (await storedCounts(kv, name, stored));
    if (!stored || !counts) continue; // a partial version (a push stopped midway) is no rollback target
    const listed = known.find((e) => e.version === version);
    entries.push({
      version,
      writtenAt: version === pointer?.version ? pointer.updatedAt : (listed?.writtenAt ?? ""),
      ...counts,
      ...(isSharded(stored) ? { shards: stored.shards.length } : {}),
      ...(listed?.summary ? { summary: listed.summary } : {}),
      ...(listed?.previous ? { previous: listed.previous } : {}),
    });
  }
  const rank = (e: TableHistoryEntry) => {
    if (e.version === pointer?.version) return -1;
    const at = known.findIndex((k) => k.version === e.version);
    return at === -1 ? known.length : at;
  };
  return entries.sort((a, b) => rank(a) - rank(b));
}

/**
 * The table the edge serves now, to compare `next` with (served-table.ts): `next` itself when the versions are the
 * same, whole when it fits in memory beside it, else its outline; null when none is served.
 */
export async function readCurrentServed(kv: KvStore, name: string, next: RouteTable, room?: () => number): Promise<ServedTable> {
  const pointer = await readPointer(kv, name);
  return pointer ? readServed(kv, name, pointer.version, next, room) : null;
}

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

/**
 * Writes values (in bulk) and reads them back: what KV returns must be exactly what was written. Each value is made
 * when the store takes it and only its digest is kept, so a sharded table's texts are never all held at once by a
 * store that writes them as it takes them. A store that can tells each value's digest instead of returning it:
 * local state's 36 shards of a 100k-route table read back as texts were 36 MB at the end of a first push, its peak.
 */
async function putVerified(kv: KvStore, entries: [key: string, text: () => string][]): Promise<void> {
  const digests: string[] = [];
  function* made(): Generator<[string, string]> {
    for (const [i, [key, text]] of entries.entries()) {
      const value = text();
      digests[i] = sha256(value);
      yield [key, value];
    }
  }
  await kv.putMany(made());
  const keys = entries.map(([key]) => key);
  const stored = kv.digestMany
    ? await kv.digestMany(keys)
    : (await kv.getMany(keys)).map((value) => (value === null ? null : sha256(value)));
  const differs = stored.findIndex((digest, i) => digest !== digests[i]);
  if (differs >= 0)
    throw new StorageError(
      `read-back of ${keys[differs]} differs from what was written; the pointer was not moved`,
      "another writer may be writing the same keys, or the store lost the write: run the sync again",
    );
}

/**
 * The pointer's text; a rollback by hand carries its marker (a push writes none, which ends the marker), a canary
 * push names its canary beside the current version.
 */
export function pointerFor(version: string, schemaVersion: number, now: Date, rolledBack?: RollbackMarker, canary?: CanaryPointer): string {
  return JSON.stringify({
    version,
    schemaVersion,
    updatedAt: now.toISOString(),
    ...(rolledBack ? { rolledBack } : {}),
    ...(canary ? { canary } : {}),
  } satisfies TablePointer);
}

/** The history without `version`'s entry (a version pushed again moves to the top). */
const kept0 = (entries: TableHistoryEntry[], version: string): TableHistoryEntry[] => entries.filter((e) => e.version !== version);

/** How long a push waits for another push of the same table before it gives up (exit 2). */
export const PUSH_WAIT_MS = 120_000;

/** What a push may be given besides its plan. */
export interface PushOptions extends Omit<LeaseOptions, "readWith"> {
  /**
   * The table the caller read as served (for the large-drop check), whole or its outline: the history's summary
   * is made against it when the pointer still names it, which saves reading it again (a wrangler process with
   * --remote).
   */
  served?: ServedTable;
  /**
   * Asked with the pointer as read under the lease (so no rollback slips in between): a rollback by hand to leave
   * in place, and nothing is written; null to push (`sync --watch`, watch/rollback-hold.ts).
   */
  holdFor?: (pointer: TablePointer | null) => RollbackHold | null;
  /** Push as a canary (`sync --canary`): the share and the analysis settings. */
  canary?: CanarySettings;
}

/**
 * The version served before `version`, for its history entry: the served one, or, when the served version itself
 * is pushed again (ending a canary), what its own entry said; never the version itself.
 */
function previousOf(served: string | undefined, version: string, entries: TableHistoryEntry[]): { previous?: string } {
  const previous = served === version ? entries.find((e) => e.version === version)?.previous : served;
  return previous !== undefined && previous !== version ? { previous } : {};
}

/**
 * Writes the planned table unless the edge already serves exactly this version, holding the table's push
 * lease (see push-lease.ts) so that concurrent pushes take turns, and local state's lock (its one writer).
 */
export function pushTable(
  kv: KvStore,
  plan: StoragePlan,
  now = new Date(),
  options: PushOptions = { waitMs: PUSH_WAIT_MS },
): Promise<PushOutcome> {
  return asWriter(kv, () => pushHeld(kv, plan, now, options));
}

async function pushHeld(kv: KvStore, plan: StoragePlan, now: Date, options: PushOptions): Promise<PushOutcome> {
  const { served, holdFor, canary: asCanary, ...guard } = options;
  // The table, not the root: a sharded root is made once its shards are written.
  const { table } = plan;
  const name = table.name;
  const lease = await takeLease(kv, name, { ...guard, readWith: [KV_KEYS.current(name), KV_KEYS.history(name)] });
  try {
    const [pointerText, historyText] = lease.values;
    const stored = parsePointerText(pointerText ?? null);
    const resolved: PointerRead | null = stored && (await resolvePointer(kv, name, stored));
    const pointer = resolved?.pointer ?? null;
    const running = resolved?.running;
    // Nothing to write: this version is served and no canary runs beside it, or it is the canary in progress.
    const unchanged = running ? asCanary !== undefined && running.canary.version === table.version : pointer?.version === table.version;
    const held = unchanged ? null : (holdFor?.(pointer) ?? null);
    if (unchanged || held) {
      const read = await readHistory(kv, name, { text: historyText ?? null, pointer });
      return {
        changed: false,
        version: table.version,
        pruned: [],
        history: read.entries,
        ...(held ? { held } : {}),
        ...(unchanged && running ? { canary: running.canary } : {}),
        ...(read.problem ? { historyProblem: read.problem } : {}),
      };
    }
    // Shards first: a root (and later the pointer) never names a shard that is not stored yet.
    if (plan.shards.length > 0)
      await putVerified(
        kv,
        plan.shards.map((shard, i) => [KV_KEYS.shard(name, table.version, i), () => shard.text()]),
      );
    // The root last: it records the sizes of the shards' texts, made as they were written.
    await putVerified(kv, [[KV_KEYS.blob(name, table.version), () => plan.root.text]]);
    // What this version changes from the one served now: the table the caller read, unless another push moved on.
    const before = pointer
      ? served?.version === pointer.version
        ? served
        : await readServed(kv, name, pointer.version, plan.table)
      : null;
    // A first version is not diffed: its summary counts it (a 100k-route table's diff against nothing took 50 ms).
    const summary = !before
      ? firstVersionSummary(plan.table)
      : "table" in before
        ? changeSummary(diffTables(before.table, plan.table), before.table, plan.table)
        : outlineSummary(before.outline, plan.table);
    // Read again right before it is written: a push that got past the lease meanwhile keeps its entry.
    const read = await readHistory(kv, name, { pointer });
    const history = kept0(read.entries, table.version);
    // A canary needs a version served beside it, and differs from it; else the push goes out as the current version.
    const canary = asCanary && pointer && pointer.version !== table.version ? newCanary(table.version, asCanary, now) : undefined;
    const canaryRefused =
      asCanary && !canary
        ? pointer
          ? "it is the version served now"
          : "no version is served yet, so there is nothing to compare it with"
        : undefined;
    history.unshift({
      version: table.version,
      writtenAt: now.toISOString(),
      rules: plan.table.rules.length,
      backends: Object.keys(plan.table.backends).length,
      ...(plan.shards.length > 0 ? { shards: plan.shards.length } : {}),
      summary,
      ...previousOf(pointer?.version, table.version, read.entries),
      ...(canary ? { canary: { id: canary.id, percent: canary.percent } } : {}),
    });
    const kept = history.slice(0, HISTORY_LIMIT);
    await kv.put(KV_KEYS.history(name), JSON.stringify(kept));
    // A canary in progress ends here: a new canary or a new current version replaces it.
    if (running)
      await endCanary(kv, name, running, pointer!.version, {
        outcome: "superseded",
        at: now.toISOString(),
        by: byCommand("sync"),
        reason: `replaced by a push of ${table.version}${canary ? " as a new canary" : ""}`,
      });
    await kv.put(
      KV_KEYS.current(name),
      canary
        ? pointerFor(pointer!.version, pointer!.schemaVersion, now, undefined, canary)
        : pointerFor(table.version, table.schemaVersion, now),
    );
    // Only after the pointer moved: drop versions that fell out of the history, never one a pointer names.
    let dropped = history.slice(HISTORY_LIMIT).filter((e) => e.version !== table.version);
    if (dropped.length > 0) {
      const now = await readPointer(kv, name);
      dropped = dropped.filter((e) => e.version !== now?.version && e.version !== now?.canary?.version);
    }
    const droppedKeys = dropped.flatMap((entry) => [
      KV_KEYS.blob(name, entry.version),
      ...Array.from({ length: entry.shards ?? 0 }, (_, i) => KV_KEYS.shard(name, entry.version, i)),
      ...(entry.canary ? [KV_KEYS.canary(name, entry.canary.id)] : []),
    ]);
    if (droppedKeys.length > 0) await kv.deleteMany(droppedKeys);
    return {
      changed: true,
      version: table.version,
      previous: pointer?.version,
      summary,
      ...(pointer?.rolledBack ? { replacedRollback: { ...pointer.rolledBack, version: pointer.version } } : {}),
      ...(canary ? { canary } : {}),
      ...(canaryRefused ? { canaryRefused } : {}),
      ...(running ? { supersededCanary: running.canary.version } : {}),
      pruned: dropped.map((e) => e.version),
      history: kept,
      ...(read.problem ? { historyProblem: read.problem } : {}),
    };
  } finally {
    await lease.release();
  }
}
