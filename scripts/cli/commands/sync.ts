/** @module `kedge sync` (and `npm run sync`): compile the clusters' resources and push the table to Workers KV. */
import { type CompileSummary, compileForEdge } from "../../sync/compile-for-edge";
import { loadConfig, withLiveClusters } from "../../sync/load-config";
import { withStore } from "../../sync/open-store";
import { PUSH_WAIT_MS, pushTable } from "../../sync/publish";
import { command, type CommandIO, EXIT, type Outcome } from "../command";
import { OUTPUT_FLAGS, SHARD_SIZE_FLAG, storeTarget, TARGET_FLAGS } from "../flags";
import { type CompiledConfig, type DiffData, type DiffOptions, diffWithServed, STATUS_OUT_FLAG, STRICT_FLAG } from "./diff";

export interface SyncOptions extends DiffOptions {
  dryRun?: boolean;
}

export type SyncData =
  | DiffData
  | (CompileSummary & {
      written: boolean;
      historyProblem?: string;
      push?: { changed: boolean; version: string; previous?: string; pruned: string[]; target: string; history: string[] };
    });

/** Compiles, checks and pushes (or with --dry-run, compares). `compiled`: a config the caller already read and compiled. */
export function syncTable(options: SyncOptions, io: CommandIO, compiled?: CompiledConfig): Promise<Outcome<SyncData>> {
  if (options.dryRun) return diffWithServed(options, io, EXIT.OK, compiled);
  const where = storeTarget(options);
  return withStore(where, "write", { progress: io.progress, waiting: io.note }, async (store) => {
    const loaded = compiled?.loaded ?? (await withLiveClusters(loadConfig(options.config)));
    const checks = { strict: options.strict ?? false, shardBytes: options.shardSize, statusOut: options.statusOut };
    const checked = await compileForEdge(loaded, where, checks, io.note, compiled?.result);
    if (checked.refusal) {
      io.note(checked.refusal.reason);
      return { code: checked.refusal.code, data: { ...checked.summary, written: false }, text: checked.report };
    }
    const name = loaded.edge.name;
    // The history comes back from the push: one KV read less (a wrangler process, about 3 s, with --remote).
    const waiting = (holder: string) => io.note(`waiting for another push of table ${name}: ${holder}`);
    const { outcome, target } = await store.use(async (kv) => ({
      outcome: await pushTable(kv, checked.plan, new Date(), { waitMs: PUSH_WAIT_MS, waiting }),
      target: kv.description,
    }));
    if (outcome.historyProblem) io.note(`! ${outcome.historyProblem}`);
    const shards = checked.plan.shards.length;
    return {
      code: EXIT.OK,
      data: {
        ...checked.summary,
        ...(outcome.historyProblem ? { historyProblem: outcome.historyProblem } : {}),
        written: outcome.changed,
        push: { ...outcome, target, history: outcome.history.map((h) => h.version) },
      },
      text: [
        ...checked.report,
        "",
        outcome.changed
          ? `wrote table ${name}@${outcome.version}${shards > 0 ? ` in ${shards} shards by host` : ""} to ${target} (previous: ${outcome.previous ?? "none"})`
          : `table ${name}@${outcome.version} is already current in ${target}; nothing written`,
      ],
    };
  });
}

export const syncCommand = command<SyncOptions>({
  name: "sync",
  summary: "compile the clusters' resources and push the table (--local or --remote)",
  description:
    "Reads kedge.yaml and every cluster's resources (folders, or live clusters through their API), reports each object's status the way a Gateway API controller does, and pushes one route table to Workers KV: versioned, the pointer moved last, earlier versions kept for `kedge rollback`.",
  flags: [
    ...TARGET_FLAGS,
    { flags: "--dry-run", description: "show what would change against the served table and write nothing (as `kedge diff`, but exit 0)" },
    STRICT_FLAG,
    STATUS_OUT_FLAG,
    SHARD_SIZE_FLAG,
    ...OUTPUT_FLAGS,
  ],
  exitCodes: {
    0: "written, or already current (warnings allowed)",
    1: "--strict and the report has errors; nothing written",
    2: "input that cannot be used (a flag, a YAML syntax error, a deployment the table would fail in, a store or login); nothing written",
  },
  examples: ["kedge sync", "kedge sync --remote --env production", "kedge sync --dry-run --json"],
  run: (options, _args, io) => syncTable(options, io),
});
