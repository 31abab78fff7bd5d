/** @module `kedge promote`: end the canary in progress by making its version the current one, before the edge decides. */
import { loadEdgeSettings } from "../../config/load-config";
import { withStore } from "../../store/open-store";
import { promoteCanary } from "../../store/promote";
import type { CanaryEnd } from "../../../src/table/canary";
import { command, EXIT } from "../command";
import { OUTPUT_FLAGS, type OutputOptions, storeTarget, TARGET_FLAGS, type TargetOptions } from "../flags";

export interface PromoteData {
  promote: { table: string; promoted: boolean; canary?: string; from?: string; ended?: CanaryEnd; served?: string | null };
}

export const promoteCommand = command<TargetOptions & OutputOptions>({
  name: "promote",
  summary: "end the canary in progress: its version becomes the current one for all traffic",
  description:
    "Ends the canary that `kedge sync --canary` started, before the edge's own analysis decides: the pointer names the canary's version alone, so every new request and session gets it (sessions on the previous version follow the current table), and its record says it was promoted by hand. A canary the edge already promoted or reverted is said as it ended; `kedge rollback` reverts a canary instead.",
  flags: [...TARGET_FLAGS, ...OUTPUT_FLAGS],
  exitCodes: {
    0: "promoted, or the edge had promoted it already",
    1: "nothing promoted: no canary in progress, or it ended otherwise (reverted, or replaced by a push)",
    2: "the config or the store cannot be used",
  },
  examples: ["kedge promote", "kedge promote --remote --env production"],
  async run(options, _args, io) {
    const name = loadEdgeSettings(options.config).name;
    const waiting = (holder: string) => io.note(`waiting for a push of table ${name} to finish: ${holder}`);
    const outcome = await withStore(storeTarget(options), "write", { progress: io.progress, waiting: io.note }, (store) =>
      store.use((kv) => promoteCanary(kv, name, { waiting })),
    );
    switch (outcome.kind) {
      case "promoted":
        return {
          code: EXIT.OK,
          data: { promote: { table: name, promoted: true, canary: outcome.canary.version, from: outcome.from, ended: outcome.end } },
          text: [
            `table ${name}: canary ${outcome.canary.version} promoted by hand; it is the current version (was ${outcome.from})`,
            "  the edge serves it to every new request and session within its refresh interval",
          ],
        };
      case "ended": {
        const { end } = outcome;
        const promoted = end.outcome === "promoted";
        return {
          code: promoted ? EXIT.OK : EXIT.REFUSED,
          data: { promote: { table: name, promoted, canary: outcome.canary.version, ended: end } },
          text: [
            `table ${name}: the canary ${outcome.canary.version} had ended already: ${end.outcome} by ${end.by} at ${end.at}`,
            `  ${end.reason}`,
            ...(promoted ? [] : ["  push it again with `kedge sync --canary` to try it once more"]),
          ],
        };
      }
      case "none":
        return {
          code: EXIT.REFUSED,
          data: { promote: { table: name, promoted: false, served: outcome.served } },
          text: [
            outcome.served
              ? `table ${name} has no canary in progress (it serves ${outcome.served}); nothing written`
              : `table ${name} was never written here; nothing written`,
            "  `kedge sync --canary` starts one",
          ],
        };
    }
  },
});
