/**
 * @module `kedge rollback`: the pointer moved back to a kept version, named whole or by a unique prefix. A rollback
 * is an operator's act, and the pointer says so (`rolledBack`: which version it undid, when, who): a running
 * `sync --watch` reads the mark and does not push over it until the clusters or the config change again
 * (watch/rollback-hold.ts). The next push, by the watch or by hand, writes a pointer without the mark. It takes
 * its turn with pushes as a push does: local state's lock, then the table's lease. With a canary in progress, a
 * rollback reverts it: the edge keeps the current version, marked as rolled back from the canary's.
 */
import { KV_KEYS } from "../../src/table/kv-keys";
import type { RollbackMarker, RouteTable, TableHistoryEntry } from "../../src/table/route-table";
import { asWriter, type KvStore } from "./kv-store";
import { pushHolder, takeLease } from "./push-lease";
import { PUSH_WAIT_MS, pointerFor, readHistory, readPointerWithCanary } from "./publish";
import { readTable } from "./read-table";
import { byCommand, endCanary } from "./canary-store";
import { resolveVersion } from "./version-prefix";
import { UserError } from "../lib/user-error";

export interface RollbackOutcome {
  from?: string;
  to: string;
  table: RouteTable;
  current: RouteTable | null;
  /** The mark the pointer carries after it (absent when the rollback went back to the version it had undone). */
  rolledBack?: RollbackMarker;
  /** The canary in progress that this rollback reverted: its version. */
  revertedCanary?: string;
  historyProblem?: string;
}

export interface RollbackOptions {
  dryRun?: boolean;
  now?: Date;
  /** Told once when the rollback has to wait for a push, with who pushes. */
  waiting?: (holder: string) => void;
}

/** Moves the pointer to `version` (whole, or a unique prefix of 6+ characters), or to the version served before the served one. */
export async function rollbackTable(
  kv: KvStore,
  name: string,
  version: string | undefined,
  options: RollbackOptions = {},
): Promise<RollbackOutcome> {
  // A dry run only reads: it takes no turn.
  if (options.dryRun) return rollbackHeld(kv, name, version, options);
  return asWriter(kv, async () => {
    const lease = await takeLease(kv, name, { waitMs: PUSH_WAIT_MS, ...(options.waiting ? { waiting: options.waiting } : {}) });
    try {
      return await rollbackHeld(kv, name, version, options);
    } finally {
      await lease.release();
    }
  });
}

/**
 * The version served before `current`: its entry's `previous` (what the edge served when it was pushed), none
 * when that one is no longer kept. Entries without the field (older ones) fall back to the next older entry that was served,
 * which passes over canaries that never served all traffic (reverted, or replaced by a later push): a rollback
 * must not point the edge at a version its analysis turned down.
 */
function servedBefore(history: TableHistoryEntry[], current: string | undefined): string | undefined {
  const at = history.findIndex((e) => e.version === current);
  if (at < 0) return undefined;
  const previous = history[at]!.previous;
  // Pruned from the history: the versions kept between are not what was served before, so none is picked.
  if (previous !== undefined && previous !== current) return history.some((e) => e.version === previous) ? previous : undefined;
  const served = new Set(history.flatMap((e) => (e.previous ? [e.previous] : [])));
  return history.slice(at + 1).find((e) => !e.canary || served.has(e.version))?.version;
}

async function rollbackHeld(kv: KvStore, name: string, version: string | undefined, options: RollbackOptions): Promise<RollbackOutcome> {
  const now = options.now ?? new Date();
  const withCanary = await readPointerWithCanary(kv, name);
  const pointer = withCanary?.pointer ?? null;
  const running = withCanary?.running;
  const read = await readHistory(kv, name, { pointer });
  const history = read.entries;
  let target =
    version === undefined
      ? undefined
      : resolveVersion(
          version,
          history.map((e) => e.version),
          name,
        );
  // A canary in progress is what a rollback undoes first: the current version stays, the canary goes.
  if (target === undefined && running) target = pointer!.version;
  if (target === undefined) {
    target = servedBefore(history, pointer?.version);
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
  // Several rollbacks in a row undo the version served before the first; going back to that one ends the mark.
  // Reverting a canary undoes the canary's version.
  const undone = running ? running.canary.version : (pointer?.rolledBack?.from ?? pointer?.version);
  const rolledBack = undone !== undefined && undone !== target ? { from: undone, at: now.toISOString(), by: pushHolder() } : undefined;
  const moved = pointer?.version !== target || running !== undefined;
  if (!options.dryRun && running)
    await endCanary(kv, name, running, pointer!.version, {
      outcome: "reverted",
      at: now.toISOString(),
      by: byCommand("rollback"),
      reason: `reverted by hand to ${target}`,
    });
  if (!options.dryRun && moved) await kv.put(KV_KEYS.current(name), pointerFor(target, table.schemaVersion, now, rolledBack));
  return {
    from: running ? running.canary.version : pointer?.version,
    to: target,
    table,
    current: running ? await readTable(kv, name, running.canary.version) : current,
    ...(running ? { revertedCanary: running.canary.version } : {}),
    ...(moved ? (rolledBack ? { rolledBack } : {}) : pointer?.rolledBack ? { rolledBack: pointer.rolledBack } : {}),
    ...(read.problem ? { historyProblem: read.problem } : {}),
  };
}
