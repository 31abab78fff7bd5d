/**
 * @module Why a running `sync --watch` does not push over a rollback by hand. `kedge rollback` marks the pointer
 * with the version it undid (store/rollback.ts). While the watch would push that same version again (its last
 * push, or for a watch started after the rollback, the version the mark names), nothing changed since the
 * rollback but the operator's mind: the watch holds, and says so once. When the clusters or the config change,
 * the table it would push is another one, and it pushes as always (which ends the mark). A canary the edge reverted
 * reads as the same mark (canary.ts `effectivePointer`), so `sync --watch --canary` does not push it again either.
 */
import type { TablePointer } from "../../src/table/route-table";
import { EDGE_ANALYSIS } from "../../src/table/canary";
import type { RollbackHold } from "../store/publish";

/**
 * The rollback to leave in place, or null to push. `next` is the version this cycle would push, `lastPushed`
 * the one this watch last pushed (or found current), if any.
 */
export function rollbackHold(pointer: TablePointer | null, next: string, lastPushed: string | undefined): RollbackHold | null {
  const mark = pointer?.rolledBack;
  if (!pointer || !mark || pointer.version === next) return null;
  // What this watch would push had nobody rolled back: its own last push, or what the rollback undid.
  const unchanged = next === (lastPushed ?? mark.from);
  return unchanged ? { ...mark, to: pointer.version } : null;
}

/** The log line of a hold, said once per rollback (or canary the edge reverted). */
export const holdLine = (table: string, hold: RollbackHold): string =>
  hold.by === EDGE_ANALYSIS
    ? `table ${table}: the canary ${hold.from} was reverted by the edge (${hold.at}), ${hold.to} serves: this watch does not push it again until the clusters or the config change`
    : `table ${table} was rolled back by hand to ${hold.to} (from ${hold.from}, ${hold.at}, by ${hold.by}): this watch does not push over it until the clusters or the config change`;

/** The log line of a push that ends a rollback by hand. */
export const overLine = (table: string, rolledBackTo: string, next: string): string =>
  `table ${table} was rolled back by hand to ${rolledBackTo}; the clusters or the config changed since: pushed ${next} over it`;

/** Where the watch writes (its WatchIO): a line for a person, a record per event. */
interface HoldIO {
  note(line: string): void;
  record(fields: Record<string, unknown>): void;
}

/**
 * Says each rollback by hand the watch leaves in place, once (not every cycle), and between cycles reads the
 * pointer now and then so that a rollback is said when it happens, not only at the next change.
 */
export class RollbackNotices {
  private said?: string;
  private timer?: NodeJS.Timeout;
  private stopped = false;

  constructor(
    private readonly io: HoldIO,
    private readonly readPointer: (table: string) => Promise<TablePointer | null>,
  ) {}

  /** Says `hold`, unless it was said already. */
  say(table: string, hold: RollbackHold | null): void {
    if (!hold) return;
    const key = `${hold.to}@${hold.at}`;
    if (this.said === key) return;
    this.said = key;
    this.io.note(holdLine(table, hold));
    this.io.record({
      time: new Date().toISOString(),
      table: `${table}@${hold.to}`,
      pushed: false,
      held: hold.by === EDGE_ANALYSIS ? `canary ${hold.from} reverted by the edge` : `rolled back by hand to ${hold.to}`,
    });
  }

  /**
   * Every `everyMs` (0: never), while `due()` names the table and the version the watch last pushed (none
   * before its first push, whose cycle says a hold itself), reads the pointer and says a new rollback.
   */
  poll(everyMs: number, due: () => { table: string; served: string } | null): void {
    if (everyMs <= 0 || this.stopped) return;
    this.timer = setTimeout(() => {
      const now = due();
      const check = now
        ? this.readPointer(now.table).then((pointer) => this.say(now.table, rollbackHold(pointer, now.served, now.served)))
        : Promise.resolve();
      // A store that fails here fails the next cycle too, which says so.
      void check.catch(() => undefined).finally(() => this.poll(everyMs, due));
    }, everyMs);
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }
}
