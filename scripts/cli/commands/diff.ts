/** @module `kedge diff`: what a sync would change against the table the edge serves; writes nothing. */
import { refusedOutcome } from "../refused-outcome";
import type { CompileResult } from "../../../src/compile/compile-route-table";
import { type CompileChecks, compileForEdge, type CompileSummary } from "../compile-for-edge";
import { diffLines, diffTables, type TableDiff } from "../../report/diff-tables";
import { type LoadedConfig, loadConfig, withLiveClusters } from "../../config/load-config";
import { withStore } from "../../store/open-store";
import { readCurrentServed } from "../../store/publish";
import { tooBigToDiff } from "../../store/served-table";
import { UserError } from "../../lib/user-error";
import { count } from "../../report/report";
import { command, type CommandIO, EXIT, type Outcome } from "../command";
import { OUTPUT_FLAGS, type OutputOptions, SHARD_SIZE_FLAG, storeTarget, TARGET_FLAGS, type TargetOptions, VERBOSE_FLAG } from "../flags";
import { diffVersions } from "../diff-versions";
import { MIN_PREFIX } from "../../store/version-prefix";

export interface DiffOptions extends TargetOptions, OutputOptions {
  strict?: boolean;
  allowInvalid?: boolean;
  statusOut?: string;
  shardSize: number;
  verbose?: boolean;
}

export const STRICT_FLAG = {
  flags: "--strict",
  description:
    "refuse (exit 1, nothing written) when the report has any error: a resource rejected, or a rule or backendRef of one dropped",
};
export const STATUS_OUT_FLAG = { flags: "--status-out <dir>", description: "write each object's status block as YAML under DIR" };
export const ALLOW_INVALID_FLAG = {
  flags: "--allow-invalid",
  description: "push even when objects fail their schema (they are left out, the rest is served); without it they refuse the push",
};
/** The same flag on `kedge diff`, which pushes nothing: it only says whether the sync it previews would refuse. */
const DIFF_ALLOW_INVALID_FLAG = {
  flags: "--allow-invalid",
  description:
    "preview `kedge sync --allow-invalid`: objects that fail their schema are left out of the diff either way; without it the diff also says that a sync would refuse them",
};

/** A config already read and compiled by the caller (`npm start` compiles it first, to start its origins). */
export interface CompiledConfig {
  loaded: LoadedConfig;
  result: CompileResult;
}

export type DiffData = CompileSummary & {
  dryRun?: TableDiff;
  written: false;
  /** Why nothing was compared: the check that refused (a --remote deployment problem, --strict). */
  refused?: string;
  /** Why a sync of this config would refuse, though the diff shows it (objects failing their schema, without --allow-invalid). */
  syncWouldRefuse?: string;
};

/**
 * Compiles and compares with the served table. `changedCode` is what a change exits with: 1 for `kedge
 * diff` (as `kubectl diff`), 0 for `sync --dry-run`.
 */
export function diffWithServed(
  options: DiffOptions,
  io: CommandIO,
  changedCode: 0 | 1,
  compiled?: CompiledConfig,
): Promise<Outcome<DiffData>> {
  const where = storeTarget(options);
  return withStore(where, "read", {}, async (store) => {
    const loaded = compiled?.loaded ?? (await withLiveClusters(loadConfig(options.config, { progress: io.progress, once: true })));
    // A diff writes nothing: it compares whatever would compile, and says when a sync would refuse it.
    const checks: CompileChecks = {
      strict: options.strict ?? false,
      allowInvalid: true,
      shardBytes: options.shardSize,
      statusOut: options.statusOut,
      verbose: options.verbose,
    };
    const checked = await compileForEdge(loaded, where, checks, io.note, compiled?.result);
    const n = checked.invalidObjects;
    const syncWouldRefuse =
      n > 0 && !options.allowInvalid
        ? `${count(n, "object")} ${n === 1 ? "fails its" : "fail their"} schema: a sync pushes ${n === 1 ? "it" : "them"} only with --allow-invalid`
        : undefined;
    if (syncWouldRefuse) io.note(`a sync would refuse this: ${syncWouldRefuse}`);
    if (checked.refusal) return refusedOutcome(checked, checked.refusal, io);
    const { table } = checked.result;
    const served = await store.use((kv) => readCurrentServed(kv, loaded.edge.name, table));
    // A diff lists every change: a served table too big to hold beside this one cannot be listed, and is not guessed at.
    if (served && "outline" in served) {
      const { why, heap } = tooBigToDiff(served);
      throw new UserError(`cannot diff: ${why}`, `give Node ${heap}; nothing was written`);
    }
    const diff = diffTables(served && served.table, table);
    const unchanged = diff.from === diff.to;
    return {
      code: unchanged ? EXIT.OK : changedCode,
      data: { ...checked.summary, dryRun: diff, written: false, ...(syncWouldRefuse ? { syncWouldRefuse } : {}) },
      text: [
        ...checked.report,
        "",
        unchanged
          ? `dry run: the edge already serves ${diff.to}; nothing would be written`
          : `dry run: ${diff.from ?? "(no table)"} → ${diff.to} (nothing written)`,
        ...diffLines(diff),
      ],
    };
  });
}

export const diffCommand = command<DiffOptions>({
  name: "diff",
  summary: "what a sync would change against the table the edge serves; writes nothing",
  description: `Compiles the config folder as \`kedge sync\` would and compares the table with the one the edge serves: the clusters whose state (Serving, Draining, Disabled) or priority changed, the hosts, rules and backends added, removed or changed, with the backendRef weights and each backend's endpoints (added, removed, ready or not, reweighted) in words. With VERSION (a kept version, or a prefix of at least ${MIN_PREFIX} characters), what that version changed from the one served before it; with FROM and TO, between two kept versions (nothing is compiled).`,
  arguments: [{ name: "versions...", description: "VERSION, or FROM TO: kept versions to compare instead of the config", required: false }],
  flags: [...TARGET_FLAGS, STRICT_FLAG, DIFF_ALLOW_INVALID_FLAG, STATUS_OUT_FLAG, SHARD_SIZE_FLAG, ...OUTPUT_FLAGS, VERBOSE_FLAG],
  exitCodes: {
    0: "the edge already serves this table (with versions: they are the same)",
    1: "the table would change (as `kubectl diff`; with versions: they differ), or --strict and the report has errors",
    2: "input that cannot be used (a flag, a YAML syntax error, an unreadable store, a version not kept or a prefix that is ambiguous), or a served table too big to compare beside the new one in this process's heap",
  },
  examples: ["kedge diff", "kedge diff --remote --env production", "kedge diff 3f9c2a", "kedge diff 3f9c2a 8be01d -o json"],
  run: (options, args, io) => (args.length > 0 ? diffVersions(options, args, io) : diffWithServed(options, io, EXIT.REFUSED)),
});
