/** @module `kedge rollback [VERSION]`: point the edge back at a kept version of its table (whole, or a unique prefix). */
import { diffLines, diffTables, type TableDiff } from "../../report/diff-tables";
import { loadEdgeSettings } from "../../config/load-config";
import { withStore } from "../../store/open-store";
import { rollbackTable } from "../../store/rollback";
import { MIN_PREFIX } from "../../store/version-prefix";
import type { RollbackMarker } from "../../../src/table/route-table";
import { command, EXIT } from "../command";
import { OUTPUT_FLAGS, type OutputOptions, storeTarget, TARGET_FLAGS, type TargetOptions } from "../flags";

interface RollbackOptions extends TargetOptions, OutputOptions {
  dryRun?: boolean;
}

export interface RollbackData {
  rollback: {
    table: string;
    from?: string;
    to: string;
    written: boolean;
    /** The pointer's mark after the rollback: a running `sync --watch` holds its pushes until the config changes. */
    rolledBack?: RollbackMarker;
    /** The canary in progress that the rollback reverted (its version). */
    revertedCanary?: string;
    diff?: TableDiff;
  };
}

export const rollbackCommand = command<RollbackOptions>({
  name: "rollback",
  summary:
    "point the edge back at a kept version (VERSION or a unique prefix, default the previous; with a canary in progress, revert it); --dry-run shows the change",
  description: `With a canary in progress (\`kedge sync --canary\`), reverts it: the edge keeps the current version for all traffic, sessions on the canary follow the current table, and the canary's record says it was reverted by hand. Otherwise moves the table's pointer to a version \`kedge history\` lists: the one served before the served one (never a canary the edge or a command turned down), or VERSION (the whole id, or a prefix of at least ${MIN_PREFIX} characters that one kept version starts with). Nothing is compiled or rewritten; the Worker picks the version up within its refresh interval. The pointer records the rollback, so a running \`kedge sync --watch\` does not push over it until the clusters or the config change again; the next push (by the watch, or \`kedge sync\` by hand) ends it. It waits only for a push in progress, never for a watch between its pushes.`,
  arguments: [
    {
      name: "version",
      description: `a kept version, or a prefix of at least ${MIN_PREFIX} characters (default: the one served before the served one)`,
      required: false,
    },
  ],
  flags: [...TARGET_FLAGS, { flags: "--dry-run", description: "show what would change and write nothing" }, ...OUTPUT_FLAGS],
  exitCodes: {
    0: "moved (or a canary reverted), or already there",
    2: "no such version kept, a prefix that is too short or matches several, the table was never written, or the store cannot be used",
  },
  examples: ["kedge rollback", "kedge rollback 3f9c2a", "kedge rollback 3f9c2a7e1b04d5c6a8e2 --remote --env production --dry-run"],
  async run(options, [version], io) {
    const name = loadEdgeSettings(options.config).name;
    const dryRun = options.dryRun ?? false;
    const waiting = (holder: string) => io.note(`waiting for a push of table ${name} to finish: ${holder}`);
    const moved = await withStore(storeTarget(options), dryRun ? "read" : "write", { progress: io.progress, waiting: io.note }, (store) =>
      store.use((kv) => rollbackTable(kv, name, version, { dryRun, waiting })),
    );
    const { from, to, historyProblem, rolledBack, revertedCanary } = moved;
    if (historyProblem) io.note(`! ${historyProblem}`);
    const diff = diffTables(moved.current, moved.table);
    const data: RollbackData = {
      rollback: {
        table: name,
        from,
        to,
        written: !dryRun && from !== to,
        ...(rolledBack ? { rolledBack } : {}),
        ...(revertedCanary ? { revertedCanary } : {}),
        ...(dryRun ? { diff } : {}),
      },
    };
    const held = rolledBack
      ? `a running \`kedge sync --watch\` does not push over it until the clusters or the config change (it would push ${rolledBack.from} again)`
      : `${to} is the version the earlier rollback undid: the rollback mark is gone, and a running \`kedge sync --watch\` pushes as before`;
    const text = revertedCanary
      ? dryRun
        ? [`dry run: table ${name} would revert the canary ${revertedCanary} and keep ${to} (nothing written)`, ...diffLines(diff)]
        : [`table ${name}: canary ${revertedCanary} reverted by hand; ${to} serves all traffic`, ...diffLines(diff), `  ${held}`]
      : from === to
        ? [`table ${name} already serves ${to}; nothing written`]
        : dryRun
          ? [`dry run: table ${name} would move ${from ?? "(none)"} → ${to} (nothing written)`, ...diffLines(diff)]
          : [`table ${name}: pointer moved ${from ?? "(none)"} → ${to}`, ...diffLines(diff), `  ${held}`];
    return { code: EXIT.OK, data, text };
  },
});
