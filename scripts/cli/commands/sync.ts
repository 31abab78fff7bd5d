/** @module `kedge sync` (and `npm run sync`): compile the clusters' resources and push the table to Workers KV. */
import { refusedOutcome } from "../refused-outcome";
import { type CompileSummary, compileForEdge } from "../compile-for-edge";
import { loadConfig, withLiveClusters } from "../../config/load-config";
import { withStore } from "../../store/open-store";
import { PUSH_WAIT_MS, type PushOutcome, pushTable, readCurrentServed } from "../../store/publish";
import { type ServedTable, tooBigToDiff } from "../../store/served-table";
import { describeStatusWrites, writeBackStatuses } from "../../kube/status/write-back";
import type { StatusWrites } from "../../kube/status/writer";
import { command, type CommandIO, EXIT, type Outcome } from "../command";
import { OUTPUT_FLAGS, parseDurationFlag, SHARD_SIZE_FLAG, storeTarget, TARGET_FLAGS, VERBOSE_FLAG } from "../flags";
import type { WatchSummary } from "../../watch/watch-loop";
import { CONTROLLER_FLAGS, type ControllerFlags, controllerOptions } from "../controller-flags";
import { runController } from "../../controller/controller";
import { type CanaryPointer, EDGE_ANALYSIS } from "../../../src/table/canary";
import { canarySettings } from "../../store/canary-store";
import { UserError } from "../../lib/user-error";
import { diffLines, diffTables } from "../../report/diff-tables";
import { largeDropFrom } from "../../checks/large-drop";
import { count } from "../../report/report";
import {
  type CompiledConfig,
  type DiffData,
  type DiffOptions,
  diffWithServed,
  ALLOW_INVALID_FLAG,
  STATUS_OUT_FLAG,
  STRICT_FLAG,
} from "./diff";

export interface SyncOptions extends DiffOptions, ControllerFlags {
  dryRun?: boolean;
  /** `--force`: push even a table that drops most of what the edge serves. */
  force?: boolean;
  watch?: boolean;
  debounce: number;
  staleAfter: number;
  /** `--no-write-status` makes this false: live clusters are only read. */
  writeStatus: boolean;
  /** `--canary [PERCENT]`: push as a canary (true: kedge.yaml's spec.rollout.percent). */
  canary?: number | true;
}

/** The lines a canary push prints: what the edge now does, and how it decides. */
export function canaryLines(name: string, canary: CanaryPointer, current: string): string[] {
  const a = canary.analysis;
  return [
    `  canary: ${name}@${canary.version} gets ${canary.percent}% of new requests and new sessions; ${current} keeps the rest (sessions stay on the version they started on)`,
    `  the edge promotes it after ${Math.round(a.windowMs / 1000)} s with at least ${a.minRequests} of its requests answered if its error rate stays within ${(a.maxErrorRateIncrease * 100).toFixed(1)} points of ${current}'s, and reverts it as soon as it is worse by more`,
    "  `kedge status` shows the analysis; `kedge promote` or `kedge rollback` ends it by hand",
  ];
}

/** A percent for --canary: 1 to 99 (a whole number). */
export function parseCanaryPercent(text: string): number {
  const percent = /^\d{1,2}$/.test(text.trim()) ? Number(text) : Number.NaN;
  if (!(percent >= 1 && percent <= 99))
    throw new UserError(
      `--canary ${JSON.stringify(text)} is not a percent from 1 to 99`,
      "for example --canary 10 (or --canary alone: kedge.yaml's spec.rollout.percent)",
    );
  return percent;
}

export type SyncData =
  | DiffData
  | (CompileSummary & {
      written: boolean;
      /** Why nothing was written, when the served table was too big to diff here (else the DiffData says it). */
      refused?: string;
      historyProblem?: string;
      push?: Omit<PushOutcome, "history" | "historyProblem"> & { target: string; history: string[] };
      statusWrites?: StatusWrites[];
    });

/** `--watch`: the loop runs until SIGTERM or SIGINT; its outcome says how many cycles and pushes it made. */
function watchAndSync(options: SyncOptions, io: CommandIO): Promise<Outcome<WatchSummary>> {
  const where = storeTarget(options);
  // Flags are checked before anything starts: a mistake there is exit 2 with nothing opened.
  const controller = controllerOptions(options);
  return withStore(where, "write", { waiting: io.note }, async (store) => {
    const settings = {
      configDir: options.config,
      where,
      checks: {
        strict: options.strict ?? false,
        allowInvalid: options.allowInvalid ?? false,
        shardBytes: options.shardSize,
        statusOut: options.statusOut,
      },
      force: options.force ?? false,
      debounceMs: options.debounce,
      staleAfterMs: options.staleAfter,
      writeStatus: options.writeStatus,
      canary: options.canary,
      // A rollback by hand is said within seconds locally; remotely each read is a wrangler process, so less often.
      rollbackPollMs: where.target === "remote" ? 60_000 : 2_000,
      resyncMs: controller.resyncMs,
    };
    const summary = await runController(settings, store, io, controller);
    return {
      code: EXIT.OK,
      data: summary,
      text: [
        `kedge sync --watch stopped after ${summary.cycles} cycles and ${summary.pushes} pushes; the edge serves ${summary.served ?? "what it served before"}`,
      ],
    };
  });
}

/** Compiles, checks and pushes (or with --dry-run, compares). `compiled`: a config the caller already read and compiled. */
export function syncTable(options: SyncOptions, io: CommandIO, compiled?: CompiledConfig): Promise<Outcome<SyncData | WatchSummary>> {
  if (options.watch) return watchAndSync(options, io);
  controllerOptions(options); // refuses the controller's flags without --watch
  if (options.dryRun) return diffWithServed(options, io, EXIT.OK, compiled);
  const where = storeTarget(options);
  return withStore(where, "write", { progress: io.progress, waiting: io.note }, async (store) => {
    const loaded = compiled?.loaded ?? (await withLiveClusters(loadConfig(options.config, { progress: io.progress, once: true })));
    const checks = {
      strict: options.strict ?? false,
      allowInvalid: options.allowInvalid ?? false,
      shardBytes: options.shardSize,
      statusOut: options.statusOut,
      verbose: options.verbose,
    };
    const checked = await compileForEdge(loaded, where, checks, io.note, compiled?.result);
    if (checked.refusal) return refusedOutcome(checked, checked.refusal, io);
    const name = loaded.edge.name;
    // Read once: the large-drop check compares with it, and the history's summary is made against it.
    let current: ServedTable | undefined;
    if (!options.force) {
      // Compared with what the edge serves before anything is written: most of it gone needs --force.
      current = await store.use((kv) => readCurrentServed(kv, name, checked.result.table));
      const drop = largeDropFrom(current, checked.result.table);
      if (drop && current) {
        io.note(`${drop} (pass --force to push it)`);
        const refused = [...checked.report, "", `refused: ${drop}`];
        // A served table too big to hold beside this one was read as its outline: the refusal counts, not lists.
        if ("outline" in current) {
          const { why, heap } = tooBigToDiff(current);
          const text = [...refused, `(${why}: its rules and hosts were counted by id; ${heap} would list them)`];
          return { code: EXIT.REFUSED, data: { ...checked.summary, written: false, refused: drop }, text };
        }
        const diff = diffTables(current.table, checked.result.table);
        return {
          code: EXIT.REFUSED,
          data: { ...checked.summary, written: false, refused: drop, dryRun: diff },
          text: [...refused, ...diffLines(diff)],
        };
      }
    }
    const asCanary = canarySettings(options.canary, loaded.edge.rollout);
    // The history comes back from the push: one KV read less (a wrangler process, about 3 s, with --remote).
    const waiting = (holder: string) => io.note(`waiting for another push of table ${name}: ${holder}`);
    const { outcome, target } = await store.use(async (kv) => ({
      outcome: await pushTable(kv, checked.plan, new Date(), {
        waitMs: PUSH_WAIT_MS,
        waiting,
        ...(current !== undefined ? { served: current } : {}),
        ...(asCanary ? { canary: asCanary } : {}),
      }),
      target: kv.description,
    }));
    if (outcome.historyProblem) io.note(`! ${outcome.historyProblem}`);
    const replaced = outcome.replacedRollback;
    // The verdict goes back to the clusters once the edge serves what it describes.
    const statusWrites =
      options.writeStatus && loaded.live.length > 0
        ? await writeBackStatuses(loaded.live, checked.result.statuses, loaded.edge.controllerName, loaded.manifests)
        : [];
    const described = describeStatusWrites(statusWrites);
    for (const problem of described.problems) io.note(problem);
    const shards = checked.plan.shards.length;
    const { history: _history, historyProblem: _problem, ...pushed } = outcome;
    return {
      code: EXIT.OK,
      data: {
        ...checked.summary,
        ...(outcome.historyProblem ? { historyProblem: outcome.historyProblem } : {}),
        written: outcome.changed,
        push: { ...pushed, target, history: outcome.history.map((h) => h.version) },
        ...(statusWrites.length > 0 ? { statusWrites } : {}),
      },
      text: [
        ...checked.report,
        "",
        outcome.changed
          ? `wrote table ${name}@${outcome.version}${shards > 0 ? ` in ${count(shards, "shard")} by host` : ""} to ${target}${outcome.canary ? " as a canary" : ""} (previous: ${outcome.previous ?? "none"}): ${outcome.summary}`
          : `table ${name}@${outcome.version} is already ${outcome.canary ? "the canary in progress" : "current"} in ${target}; nothing written`,
        ...(outcome.canary && outcome.changed ? canaryLines(name, outcome.canary, outcome.previous ?? "") : []),
        ...(outcome.canaryRefused ? [`  pushed as the current version, not as a canary: ${outcome.canaryRefused}`] : []),
        ...(outcome.supersededCanary ? [`  the canary ${outcome.supersededCanary} that was in progress ended: this push replaces it`] : []),
        ...(replaced
          ? [
              `  this push replaces the ${replaced.by === EDGE_ANALYSIS ? "edge's revert of its canary" : "rollback by hand"} to ${replaced.version} (${replaced.at}, by ${replaced.by}); a running \`kedge sync --watch\` pushes as before`,
            ]
          : []),
        ...described.lines,
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
    {
      flags: "--watch",
      description:
        "keep running: watch the live clusters and the config folder, and after each quiet period push the table if it changed and write status back; SIGTERM stops it",
      conflicts: ["dryRun"],
    },
    {
      flags: "--debounce <duration>",
      description: "with --watch: the quiet period after a change",
      default: 1000,
      defaultText: "1s",
      parse: (text) => parseDurationFlag(text, "--debounce"),
    },
    {
      flags: "--stale-after <duration>",
      description: "with --watch: how long a cluster whose API stopped answering keeps its last snapshot's endpoints",
      default: 600_000,
      defaultText: "10m",
      parse: (text) => parseDurationFlag(text, "--stale-after"),
    },
    STRICT_FLAG,
    ALLOW_INVALID_FLAG,
    {
      flags: "--force",
      description:
        "push even a table that removes more than half of the served rules or hosts (or all of them); without it such a push is refused, with the diff",
    },
    STATUS_OUT_FLAG,
    ...CONTROLLER_FLAGS,
    {
      flags: "--no-write-status",
      description:
        "do not write status back into the clusters read through their API (kubeContext); by default each object's status is written after the push",
    },
    {
      flags: "--canary [percent]",
      description:
        "push as a canary: the edge serves the new version to PERCENT of new requests and sessions (default kedge.yaml spec.rollout.percent, 10), compares its error rate with the current version's and promotes or reverts it by itself",
      parse: (text) => parseCanaryPercent(text),
      conflicts: ["dryRun"],
    },
    SHARD_SIZE_FLAG,
    ...OUTPUT_FLAGS,
    VERBOSE_FLAG,
  ],
  exitCodes: {
    0: "written, or already current (warnings allowed; a status the cluster refused is a warning)",
    1: "refused, nothing written: --strict and the report has errors; an object fails its schema (without --allow-invalid); or the push would remove more than half of what the edge serves (without --force)",
    2: "input that cannot be used (a flag, a YAML syntax error, a deployment the table would fail in, a store or login), or with --dry-run a served table too big to compare beside the new one in this process's heap; nothing written",
  },
  examples: [
    "kedge sync",
    "kedge sync --remote --env production",
    "kedge sync --dry-run --json",
    "kedge sync --canary 10",
    "kedge sync --watch --remote --env production",
    "kedge sync --watch --remote --leader-elect --metrics-bind-address :8080 --health-probe-bind-address :8081",
  ],
  run: (options, _args, io) => syncTable(options, io),
});
