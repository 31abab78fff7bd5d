/** @module One sync run: load ▸ compile ▸ report ▸ (strict gate) ▸ push or dry-run or rollback. Returns the exit code. */
import { type CompileResult, compileRouteTable } from "../../src/compile/compile-route-table";
import { planStorage, type ShardLimits, type StoragePlan } from "../../src/table/shard-table";
import type { RouteTable } from "../../src/table/route-table";
import { readWranglerFacts } from "../lib/wrangler-config";
import type { SyncOptions } from "./args";
import { missingRoutesBlock, tableNameProblem } from "./deployment-checks";
import { diffTables } from "./diff-tables";
import type { KvStore } from "./kv-store";
import { type LoadedConfig, loadConfig, withLiveClusters } from "./load-config";
import { openLocalKv } from "./local-kv";
import { PUSH_WAIT_MS, pushTable, readCurrentTable, readHistory, readPointer, rollbackTable } from "./publish";
import { openRemoteKv } from "./remote-kv";
import { lockState } from "./state-lock";
import { networkBindingProblems } from "./network-bindings";
import { describeUnreachable, unreachableEndpoints } from "./unreachable-endpoints";
import { UserError } from "./user-error";
import { count, errorCount, formatReport } from "./report";
import { writeStatusFiles } from "./write-status";

export interface Output {
  out(text: string): void;
  err(text: string): void;
}

export const EXIT = { OK: 0, REJECTED: 1, UNUSABLE_INPUT: 2 } as const;

/**
 * The store the options name. A writer of local state first takes the folder's lock (state-lock.ts): two
 * workerd processes must not write one folder's KV at once. Remote pushes take turns by their lease instead.
 */
export async function openStore(options: SyncOptions, abandoned: AbortSignal, intent: "read" | "write"): Promise<KvStore> {
  const facts = readWranglerFacts(options.wranglerConfig, options.env);
  // Progress lines for a person watching a push; never in --json output or a log file.
  const progress = !options.json && process.stderr.isTTY ? (line: string) => process.stderr.write(`${line}\n`) : undefined;
  if (options.target === "remote") return openRemoteKv(facts.kvNamespaceId, options.wranglerConfig, ["--remote"], progress);
  if (intent === "read") return openLocalKv(options.persistTo, facts.kvNamespaceId, abandoned);
  const waiting = (holder: string) => {
    if (!options.json) process.stderr.write(`waiting for another sync writing ${options.persistTo}: ${holder}\n`);
  };
  const lock = await lockState(options.persistTo, { waitMs: PUSH_WAIT_MS, waiting, signal: abandoned });
  try {
    const kv = await openLocalKv(options.persistTo, facts.kvNamespaceId, abandoned);
    return {
      ...kv,
      async close() {
        try {
          await kv.close();
        } finally {
          lock.release();
        }
      },
    };
  } catch (error) {
    lock.release();
    throw error;
  }
}

/**
 * The KV store, opened ahead of need: local KV boots workerd in its own process, which then starts while
 * the config compiles. `release` closes it whether or not it was used (or opened); one never used is
 * abandoned at once rather than waited for (a config error is reported without waiting for workerd).
 */
class StoreOpenedAhead {
  private readonly opening: Promise<KvStore>;
  private readonly abandon = new AbortController();
  private used = false;

  constructor(options: SyncOptions) {
    const writes = !options.history && !options.dryRun;
    this.opening = openStore(options, this.abandon.signal, writes ? "write" : "read");
    // Its failure is reported where the store is used, not as an unhandled rejection meanwhile.
    this.opening.catch(() => undefined);
  }

  async use<T>(fn: (kv: KvStore) => Promise<T>): Promise<T> {
    this.used = true;
    return fn(await this.opening);
  }

  async release(): Promise<void> {
    if (!this.used) this.abandon.abort();
    const kv = await this.opening.catch(() => null);
    await kv?.close();
  }
}

/** How the table will be stored (whole or in shards); one KV cannot hold is refused before anything is written (exit 2). */
export function planOrRefuse(table: RouteTable, limits: ShardLimits = {}, text?: string): StoragePlan {
  const planned = planStorage(table, limits, text);
  if (planned.ok) return planned.plan;
  throw new UserError(
    planned.problem,
    "split the clusters' Gateways across several edges (one kedge.yaml and Worker each, different metadata.name); nothing was written",
  );
}

/** A config already read and compiled by the caller (`npm start` compiles it first, to start its origins). */
export interface CompiledConfig {
  loaded: LoadedConfig;
  result: CompileResult;
}

export async function runSync(options: SyncOptions, io: Output, compiled?: CompiledConfig): Promise<number> {
  // Opened first: local KV's workerd starts while the config is read and compiled (and is released
  // unused when the config is unusable).
  const store = new StoreOpenedAhead(options);
  try {
    const loaded = compiled?.loaded ?? (await withLiveClusters(loadConfig(options.configDir)));
    if (options.history) return await history(options, io, loaded.edge.name, store);
    if (options.rollback) return await rollback(options, io, loaded.edge.name, store);
    return await compileAndWrite(options, io, loaded, store, compiled?.result);
  } finally {
    await store.release();
  }
}

async function rollback(options: SyncOptions, io: Output, name: string, store: StoreOpenedAhead): Promise<number> {
  const dryRun = options.dryRun;
  const { from, to, table, current, historyProblem } = await store.use((kv) =>
    rollbackTable(kv, name, options.rollback?.version, new Date(), dryRun),
  );
  if (historyProblem && !options.json) io.err(`! ${historyProblem}`);
  const diff = diffTables(current, table);
  if (options.json) {
    io.out(JSON.stringify({ rollback: { table: name, from, to, written: !dryRun && from !== to, ...(dryRun ? { diff } : {}) } }, null, 2));
    return EXIT.OK;
  }
  if (from === to) io.out(`table ${name} already serves ${to}; nothing written`);
  else if (!dryRun) io.out(`table ${name}: pointer moved ${from ?? "(none)"} → ${to}`);
  else {
    io.out(`dry run: table ${name} would move ${from ?? "(none)"} → ${to} (nothing written)`);
    printDiff(io, diff);
  }
  return EXIT.OK;
}

async function history(options: SyncOptions, io: Output, name: string, store: StoreOpenedAhead): Promise<number> {
  const { read, served } = await store.use(async (kv) => ({
    read: await readHistory(kv, name),
    served: (await readPointer(kv, name))?.version,
  }));
  const { entries, problem } = read;
  if (options.json) {
    io.out(JSON.stringify({ table: name, served, history: entries, ...(problem ? { historyProblem: problem } : {}) }, null, 2));
    return EXIT.OK;
  }
  if (problem) io.err(`! ${problem}`);
  if (entries.length === 0) {
    io.out(`table ${name} was never written here`);
    return EXIT.OK;
  }
  io.out(`table ${name} (${entries.length} kept versions; * = served)`);
  for (const e of entries)
    io.out(
      `${e.version === served ? "*" : " "} ${e.version}  ${e.writtenAt || "(time unknown)"}  ${count(e.rules, "rule")}, ${count(e.backends, "backend")}${e.shards ? `, ${e.shards} shards` : ""}`,
    );
  return EXIT.OK;
}

/** The rules and backends a change adds, removes or changes, one line each. */
function printDiff(io: Output, diff: ReturnType<typeof diffTables>): void {
  for (const [what, d] of [
    ["rule", diff.rules],
    ["backend", diff.backends],
  ] as const) {
    for (const id of d.added) io.out(`  + ${what} ${id}`);
    for (const id of d.removed) io.out(`  - ${what} ${id}`);
    for (const id of d.changed) {
      io.out(`  ~ ${what} ${id}`);
      for (const field of d.fields[id] ?? []) io.out(`      ${field}`);
    }
  }
}

async function compileAndWrite(
  options: SyncOptions,
  io: Output,
  loaded: LoadedConfig,
  store: StoreOpenedAhead,
  compiled: CompileResult | undefined,
): Promise<number> {
  const name = loaded.edge.name;
  const result = compiled ?? (await compileRouteTable(loaded.edge, loaded.manifests));
  const plan = planOrRefuse(result.table, { shardBytes: options.shardBytes }, result.text);
  const errors = errorCount(result.diagnostics);
  const clusters = loaded.edge.clusters.map((c) => c.name);
  if (options.statusOut) writeStatusFiles(options.statusOut, result.statuses);
  const summary: Record<string, unknown> = {
    table: {
      name,
      version: result.table.version,
      rules: result.table.rules.length,
      backends: Object.keys(result.table.backends).length,
      shards: plan.shards.length,
    },
    statuses: result.statuses,
    diagnostics: result.diagnostics,
    skipped: loaded.skipped,
  };
  if (!options.json) {
    io.out(formatReport({ ...result, skipped: loaded.skipped, clusters }));
    for (const dir of loaded.unknownClusterDirs) io.out(`! clusters/${dir}/ is not named in kedge.yaml; ignored`);
  }
  if (options.target === "remote") {
    // The deployed Worker: does it serve this table, and do its routes bring it these hostnames?
    const facts = readWranglerFacts(options.wranglerConfig, options.env);
    const where = options.env === undefined ? options.wranglerConfig : `environment "${options.env}" of ${options.wranglerConfig}`;
    const nameProblem = tableNameProblem(facts, name, where);
    if (nameProblem) {
      summary.tableNameProblem = nameProblem;
      if (!options.json) io.err(`! ${nameProblem}`);
    }
    const routes = missingRoutesBlock(facts, result.table, options.wranglerConfig);
    if (routes) {
      summary.missingRoutes = routes;
      if (!options.json) io.err(`! ${routes}`);
    }
    // What the deployed Worker could not reach: a push would turn those requests into errors.
    const networks = networkBindingProblems(loaded.edge, facts, options.wranglerConfig, options.env, where);
    const unreachable = unreachableEndpoints(result.table);
    summary.networkBindings = networks;
    summary.unreachable = unreachable;
    if (!options.json) {
      for (const problem of networks) io.err(`✗ --remote: ${problem}`);
      for (const u of unreachable) io.err(`${u.severity === "error" ? "✗" : "!"} --remote: ${describeUnreachable(u)}\n    fix: ${u.fix}`);
    }
    const refusals = networks.length + unreachable.filter((u) => u.severity === "error").length;
    if (refusals > 0) {
      summary.written = false;
      if (!options.json) io.err(`--remote: ${count(refusals, "problem")} above would fail requests at the edge; nothing written`);
      if (options.json) io.out(JSON.stringify(summary, null, 2));
      return EXIT.UNUSABLE_INPUT;
    }
  }
  const finish = (code: number) => {
    if (options.json) io.out(JSON.stringify(summary, null, 2));
    return code;
  };

  if (options.strict && errors > 0) {
    summary.written = false;
    if (!options.json) io.err(`--strict: ${count(errors, "error")} above; nothing written`);
    return finish(EXIT.REJECTED);
  }

  if (options.dryRun) {
    const diff = await store.use(async (kv) => diffTables(await readCurrentTable(kv, name), result.table));
    summary.dryRun = diff;
    summary.written = false;
    if (!options.json) {
      const unchanged = diff.from === diff.to;
      io.out(
        unchanged
          ? `\ndry run: the edge already serves ${diff.to}; nothing would be written`
          : `\ndry run: ${diff.from ?? "(no table)"} → ${diff.to} (nothing written)`,
      );
      printDiff(io, diff);
    }
    return finish(EXIT.OK);
  }

  // The history comes back from the push: one KV read less (a wrangler process, about 3 s, with --remote).
  const waiting = (holder: string) => {
    if (!options.json) io.err(`waiting for another push of table ${name}: ${holder}`);
  };
  const pushed = await store.use(async (kv) => ({
    outcome: await pushTable(kv, plan, new Date(), { waitMs: PUSH_WAIT_MS, waiting }),
    where: kv.description,
  }));
  if (pushed.outcome.historyProblem && !options.json) io.err(`! ${pushed.outcome.historyProblem}`);
  if (pushed.outcome.historyProblem) summary.historyProblem = pushed.outcome.historyProblem;
  summary.written = pushed.outcome.changed;
  summary.push = { ...pushed.outcome, target: pushed.where, history: pushed.outcome.history.map((h) => h.version) };
  if (!options.json) {
    io.out(
      pushed.outcome.changed
        ? `\nwrote table ${name}@${pushed.outcome.version}${plan.shards.length > 0 ? ` in ${plan.shards.length} shards by host` : ""} to ${pushed.where} (previous: ${pushed.outcome.previous ?? "none"})`
        : `\ntable ${name}@${pushed.outcome.version} is already current in ${pushed.where}; nothing written`,
    );
  }
  return finish(EXIT.OK);
}
