/**
 * @module `kedge promote`: the canary in progress made the current version by hand, before the edge's analysis
 * decides. It takes its turn as a push does (local state's lock, then the table's lease), writes the canary's end
 * to its record and then the pointer naming the canary's version alone. A canary the edge already decided is
 * said as it ended, and the pointer is left as that decision makes it.
 */
import type { CanaryEnd, CanaryPointer } from "../../src/table/canary";
import { KV_KEYS } from "../../src/table/kv-keys";
import { byCommand, endCanary } from "./canary-store";
import { asWriter, type KvStore } from "./kv-store";
import { PUSH_WAIT_MS, pointerFor, readPointerWithCanary } from "./publish";
import { readStoredTable } from "./read-table";
import { takeLease } from "./push-lease";

export type PromoteOutcome =
  | { kind: "promoted"; canary: CanaryPointer; from: string; end: CanaryEnd }
  /** It had ended already (the edge's analysis, or another command): how. */
  | { kind: "ended"; canary: CanaryPointer; end: CanaryEnd }
  | { kind: "none"; served: string | null };

export function promoteCanary(
  kv: KvStore,
  name: string,
  options: { now?: Date; waiting?: (holder: string) => void } = {},
): Promise<PromoteOutcome> {
  return asWriter(kv, async () => {
    const lease = await takeLease(kv, name, { waitMs: PUSH_WAIT_MS, ...(options.waiting ? { waiting: options.waiting } : {}) });
    try {
      const now = options.now ?? new Date();
      const read = await readPointerWithCanary(kv, name);
      if (read?.ended?.ended) return { kind: "ended", canary: read.ended.canary, end: read.ended.ended };
      const running = read?.running;
      if (!read || !running) return { kind: "none", served: read?.pointer.version ?? null };
      const from = read.pointer.version;
      const end = await endCanary(kv, name, running, from, {
        outcome: "promoted",
        at: now.toISOString(),
        by: byCommand("promote"),
        reason: `promoted by hand over ${from}`,
      });
      if (end.outcome !== "promoted") return { kind: "ended", canary: running.canary, end };
      const stored = await readStoredTable(kv, name, running.canary.version);
      await kv.put(KV_KEYS.current(name), pointerFor(running.canary.version, stored?.schemaVersion ?? read.pointer.schemaVersion, now));
      return { kind: "promoted", canary: running.canary, from, end };
    } finally {
      await lease.release();
    }
  });
}
