/** @module `kedge rollback [VERSION]`: point the edge back at a kept version of its table. */
import { diffLines, diffTables, type TableDiff } from "../../report/diff-tables";
import { loadConfig } from "../../config/load-config";
import { withStore } from "../../store/open-store";
import { rollbackTable } from "../../store/publish";
import { command, EXIT } from "../command";
import { OUTPUT_FLAGS, type OutputOptions, storeTarget, TARGET_FLAGS, type TargetOptions } from "../flags";

interface RollbackOptions extends TargetOptions, OutputOptions {
  dryRun?: boolean;
}

export interface RollbackData {
  rollback: { table: string; from?: string; to: string; written: boolean; diff?: TableDiff };
}

export const rollbackCommand = command<RollbackOptions>({
  name: "rollback",
  summary: "point the edge back at a kept version (VERSION, default the previous); --dry-run shows the change",
  description:
    "Moves the table's pointer to a version `kedge history` lists: the one written before the served one, or VERSION. Nothing is compiled or rewritten; the Worker picks the version up within its refresh interval.",
  arguments: [{ name: "version", description: "a kept version (default: the one written before the served one)", required: false }],
  flags: [...TARGET_FLAGS, { flags: "--dry-run", description: "show what would change and write nothing" }, ...OUTPUT_FLAGS],
  exitCodes: {
    0: "moved, or already there",
    2: "no such version kept, the table was never written, or the store cannot be used",
  },
  examples: ["kedge rollback", "kedge rollback 3f9c2a7e1b04d5c6a8e2 --remote --env production --dry-run"],
  async run(options, [version], io) {
    const name = loadConfig(options.config).edge.name;
    const dryRun = options.dryRun ?? false;
    const moved = await withStore(storeTarget(options), dryRun ? "read" : "write", { progress: io.progress, waiting: io.note }, (store) =>
      store.use((kv) => rollbackTable(kv, name, version, new Date(), dryRun)),
    );
    const { from, to, historyProblem } = moved;
    if (historyProblem) io.note(`! ${historyProblem}`);
    const diff = diffTables(moved.current, moved.table);
    const data: RollbackData = { rollback: { table: name, from, to, written: !dryRun && from !== to, ...(dryRun ? { diff } : {}) } };
    const text =
      from === to
        ? [`table ${name} already serves ${to}; nothing written`]
        : dryRun
          ? [`dry run: table ${name} would move ${from ?? "(none)"} → ${to} (nothing written)`, ...diffLines(diff)]
          : [`table ${name}: pointer moved ${from ?? "(none)"} → ${to}`];
    return { code: EXIT.OK, data, text };
  },
});
