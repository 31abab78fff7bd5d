/**
 * @module `kedge sync --watch`: the sync as a long-running process. Every live cluster is listed and
 * watched (kube/cluster-watch.ts) and the config folder is watched for file changes; after a quiet
 * period (`--debounce`; at most ten of them when changes never stop) the loop recompiles, pushes only
 * when the table changed, and writes status back to the clusters that answer. A cluster whose API stops
 * answering keeps its last snapshot, marked stale in the table (`staleSince`: the status page and
 * `kedge status` show its age), while the other clusters' changes keep flowing; past `--stale-after` its
 * endpoints are left out, as if it were disabled, until it answers again. Before every live cluster has
 * been listed once nothing is pushed (a restart during an outage must not drop a cluster), unless the
 * stale bound passes first. A rollback by hand (`kedge rollback`, which the watch leaves room for: local
 * state's lock is held only while it pushes) is left in place until the clusters or the config change again
 * (rollback-hold.ts), and said once in the log. With `--canary` each change goes out as a canary, which the edge
 * promotes or reverts by itself; a reverted canary marks the pointer as rolled back from its version, so the watch
 * holds it exactly as it holds a rollback by hand, until the config changes. SIGTERM or SIGINT lets a cycle in
 * progress finish its push (the pointer moves last either way), then stops. One structured record per cycle. Under
 * leader election (controller/) only the leader pushes and writes status: a follower watches and compiles every
 * cycle, so that the cycle it runs on taking over publishes at once; an observer counts what each cycle did.
 */
import { watch as watchFiles, type FSWatcher } from "node:fs";
import { relative, resolve, sep } from "node:path";
import type { ClusterSettings } from "../../src/compile/input/edge-config";
import type { CompileResult } from "../../src/compile/compile-route-table";
import { ClusterWatch, type ServiceChange } from "../kube/cluster-watch";
import { routedServices } from "../../src/compile/input/reachable";
import { ClusterWatches } from "./cluster-watches";
import { type StatusWrites, writeClusterStatuses } from "../kube/status/writer";
import { type CompileChecks, compileForEdge } from "../cli/compile-for-edge";
import type { KvStore } from "../store/kv-store";
import { type LoadedConfig, loadConfig } from "../config/load-config";
import type { StoreOpenedAhead, StoreTarget } from "../store/open-store";
import { largeDropFrom } from "../checks/large-drop";
import { PUSH_WAIT_MS, pushTable, readCurrentServed, readPointer } from "../store/publish";
import type { ServedTable } from "../store/served-table";
import { overLine, rollbackHold, RollbackNotices } from "./rollback-hold";
import { type CanarySettings, canarySettings } from "../store/canary-store";
import { errorCount } from "../report/report";
import { UserError } from "../lib/user-error";

export interface WatchSettings {
  configDir: string;
  where: StoreTarget;
  checks: CompileChecks;
  /** Push even a table that drops most of what the edge serves (checks/large-drop.ts). */
  force: boolean;
  debounceMs: number;
  staleAfterMs: number;
  writeStatus: boolean;
  /** How often the pointer is read between cycles, to say at once that the edge was rolled back by hand (0: never). */
  rollbackPollMs?: number;
  /** `--canary [PERCENT]`: each change goes out as a canary (true: kedge.yaml's spec.rollout.percent). */
  canary?: number | true;
  /** How often each cluster is discovered and listed again while its watches run (`--resync-period`). */
  resyncMs?: number;
}

/** Who may publish: the leader of an election; without one, every watch does. */
export interface PublishGate {
  mayPublish(): boolean;
  /** Who publishes instead, for the record of a cycle that does not ("" while nobody leads). */
  publisher(): string;
}

/** What became of a cycle's push. */
export type PushResult = "pushed" | "unchanged" | "refused" | "held" | "failed";

/** Told what each cycle did (controller/metrics.ts counts it). */
export interface WatchObserver {
  compiled(counts: { errors: number; warnings: number }): void;
  pushed(result: PushResult, at: Date): void;
  statusWritten(reports: StatusWrites[]): void;
}

export interface WatchHooks {
  gate?: PublishGate;
  observer?: WatchObserver;
}

/** Where a watch writes: lines for a person, and one record per cycle. */
export interface WatchIO {
  note(line: string): void;
  record(fields: Record<string, unknown>): void;
}

export interface WatchSummary {
  cycles: number;
  pushes: number;
  /** The version last pushed or found current. */
  served?: string;
}

/** The Services the last compile's objects name, their namespaces, and the clusters it accounted idle. */
interface RoutedSet {
  services: Set<string>;
  namespaces: Set<string>;
  idleClusters: Set<string>;
}

/**
 * Whether a change to a Service or an EndpointSlice can change the table or the status written back: it concerns a
 * named Service; or it is a Service in a namespace where a route names Services (a reference that does not resolve
 * is told with the namespace's Service names, did-you-mean); or its cluster was idle, whose account (why it takes
 * no traffic) a first object changes.
 */
function countsFor(routed: RoutedSet, change: ServiceChange): boolean {
  if (routed.idleClusters.has(change.cluster)) return true;
  return change.services.some(
    (key) => routed.services.has(key) || (change.kind === "Service" && routed.namespaces.has(key.slice(0, key.indexOf("/")))),
  );
}

/** A cycle's trigger as its record says it: the first three reasons and how many more. */
const triggerOf = (reasons: string[]) => reasons.slice(0, 3).join("; ") + (reasons.length > 3 ? ` (+${reasons.length - 3})` : "");

/** Why the watch stopped early: a cluster refused its listing (exit 2, as a one-shot sync). */
class WatchFailed extends UserError {}

export class WatchLoop {
  readonly watches: ClusterWatches;
  private retryTimer?: NodeJS.Timeout;
  private files?: FSWatcher;
  private timer?: NodeJS.Timeout;
  private staleTimer?: NodeJS.Timeout;
  private readonly rollbacks: RollbackNotices;
  private firstPending?: number;
  private reasons: string[] = [];
  /** Whether a pending change can change the table: anything but a Service or EndpointSlice of a Service not routed. */
  private pendingCounts = false;
  /** What the last compile read (unset before one: every change counts); see `countsFor`. */
  private routed?: RoutedSet;
  private running?: Promise<void>;
  private rerun = false;
  private stopping = false;
  private failure?: Error;
  private readonly summary: WatchSummary = { cycles: 0, pushes: 0 };
  /** A cycle compiled every live cluster's snapshot: a follower is warm, ready to take over. */
  private warm = false;
  /** The edge serves a table (this watch published it, found it current, or left one in place). */
  private edgeServes = false;
  private finish!: () => void;
  private readonly finished = new Promise<void>((resolve) => (this.finish = resolve));

  constructor(
    private readonly settings: WatchSettings,
    private readonly store: StoreOpenedAhead,
    private readonly io: WatchIO,
    private readonly hooks: WatchHooks = {},
  ) {
    this.rollbacks = new RollbackNotices(io, (table) => this.store.use((kv: KvStore) => readPointer(kv, table)));
    this.watches = new ClusterWatches((cluster) => this.startWatch(cluster));
  }

  /**
   * Why this watch is not ready (/readyz), or null: ready once the edge serves a table it published or
   * found, or, for a follower, once it has compiled every live cluster's snapshot.
   */
  readiness(): string | null {
    const leading = this.hooks.gate?.mayPublish() ?? true;
    if (this.edgeServes || (!leading && this.warm)) return null;
    const waiting = this.watches.waiting(this.settings.staleAfterMs);
    if (waiting.length > 0) return `waiting for cluster ${waiting.map((w) => w.cluster.name).join(", ")} to be listed once`;
    return leading ? "no table published yet" : "no table compiled yet";
  }

  /** A change from outside the clusters and files (leadership taken): a cycle after the quiet period, or at once. */
  poke(why: string, now = false): void {
    this.changed(why, now);
  }

  /** Stops the watch with `error` (exit 2 for a UserError), as a cluster that refuses its listing does. */
  fail(error: Error): void {
    this.failure = error;
    void this.stop();
  }

  /** Runs until `stop()` (or SIGTERM/SIGINT); the config must load at the start (else a UserError, exit 2). */
  async run(signals: NodeJS.Signals[] = ["SIGTERM", "SIGINT"]): Promise<WatchSummary> {
    const loaded = loadConfig(this.settings.configDir);
    this.watches.reconcile(loaded.edge);
    // Files written under --status-out (when it is inside the config folder) are the loop's own output.
    const statusOut = this.settings.checks.statusOut
      ? relative(resolve(this.settings.configDir), resolve(this.settings.checks.statusOut))
      : undefined;
    const own = (file: string) =>
      statusOut !== undefined && !statusOut.startsWith("..") && (file === statusOut || file.startsWith(`${statusOut}${sep}`));
    this.files = watchFiles(this.settings.configDir, { recursive: true }, (_event, file) => {
      if (!file || !own(file)) this.changed(`file ${file ?? "?"} changed`);
    });
    this.files.on("error", (error) =>
      this.io.note(`! watching ${this.settings.configDir} failed (${error.message}); file changes are no longer seen`),
    );
    const onSignal = (signal: NodeJS.Signals) => {
      this.io.record({ time: new Date().toISOString(), signal, stopping: "the cycle in progress finishes, then the watch stops" });
      void this.stop();
    };
    for (const s of signals) process.once(s, onSignal);
    const table = loaded.edge.name;
    this.rollbacks.poll(this.settings.rollbackPollMs ?? 0, () =>
      this.summary.served && !this.running ? { table, served: this.summary.served } : null,
    );
    this.changed("started");
    await this.finished;
    for (const s of signals) process.off(s, onSignal);
    if (this.failure) throw this.failure;
    return this.summary;
  }

  /** Stops watching; a cycle in progress finishes first. */
  async stop(): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    clearTimeout(this.timer);
    clearTimeout(this.staleTimer);
    clearTimeout(this.retryTimer);
    this.rollbacks.stop();
    this.files?.close();
    this.watches.stop();
    await this.running;
    this.finish();
  }

  private startWatch(cluster: ClusterSettings): ClusterWatch {
    const w = new ClusterWatch(cluster, (why, change) => this.changed(why, false, change), {
      ...(this.settings.resyncMs !== undefined ? { resyncMs: this.settings.resyncMs } : {}),
      note: this.io.note,
    });
    w.start((error) => this.fail(new WatchFailed(error.message, error instanceof UserError ? error.hint : undefined)));
    return w;
  }

  /** A cycle again after a while (ten quiet periods, at least 5 s) even if nothing changes. */
  private retryLater(why: string): void {
    clearTimeout(this.retryTimer);
    if (!this.stopping) this.retryTimer = setTimeout(() => this.changed(why), Math.max(5000, this.settings.debounceMs * 10));
  }

  /** A change: the next cycle runs after the quiet period, or at once when changes have kept coming for ten. */
  private changed(why: string, immediate = false, change?: ServiceChange): void {
    if (this.stopping) return;
    this.reasons.push(why);
    if (!change || !this.routed || countsFor(this.routed, change)) this.pendingCounts = true;
    const now = Date.now();
    this.firstPending ??= now;
    clearTimeout(this.timer);
    const waited = now - this.firstPending;
    const delay = immediate || waited >= this.settings.debounceMs * 10 ? 0 : this.settings.debounceMs;
    this.timer = setTimeout(() => void this.cycle(), delay);
  }

  private cycle(): Promise<void> {
    if (this.running) {
      this.rerun = true;
      return this.running;
    }
    const reasons = this.reasons;
    const counts = this.pendingCounts;
    this.reasons = [];
    this.pendingCounts = false;
    this.firstPending = undefined;
    this.running = (counts ? this.runCycle(reasons) : this.passOver(reasons))
      .catch((error: unknown) => {
        // A store that failed (or a bug): said, and tried again after a while even if nothing changes.
        this.hooks.observer?.pushed("failed", new Date());
        this.io.record({
          time: new Date().toISOString(),
          cycle: this.summary.cycles,
          error: error instanceof Error ? error.message : String(error),
        });
        this.retryLater("retry after a failed cycle");
      })
      .finally(() => {
        this.running = undefined;
        if (this.rerun && !this.stopping) {
          this.rerun = false;
          // Whether those changes count was noted as they came.
          this.changed("changes during the last cycle", false, { cluster: "", kind: "EndpointSlice", services: [] });
        }
      });
    return this.running;
  }

  /** A cycle again when the oldest stale cluster passes the bound, so its endpoints go without another change. */
  private scheduleStaleBound(now: number): void {
    clearTimeout(this.staleTimer);
    if (this.stopping) return;
    const due = this.watches.nextStaleBoundMs(this.settings.staleAfterMs, now);
    if (due !== null) this.staleTimer = setTimeout(() => this.changed("a stale cluster passed --stale-after"), due + 50);
  }

  /**
   * Changes to Services (and their EndpointSlices) that nothing at the edge names: the table cannot change, so
   * nothing is compiled (a big cluster's churn costs nothing); said in the cycle's record.
   */
  private async passOver(reasons: string[]): Promise<void> {
    this.io.record({
      time: new Date().toISOString(),
      cycle: ++this.summary.cycles,
      trigger: triggerOf(reasons),
      compiled: false,
      note: `${reasons.length === 1 ? "a change" : `${reasons.length} changes`} to Services no route reaches`,
      served: this.summary.served,
    });
  }

  private async runCycle(reasons: string[]): Promise<void> {
    const started = Date.now();
    const cycle = ++this.summary.cycles;
    const base = {
      time: new Date(started).toISOString(),
      cycle,
      trigger: triggerOf(reasons),
    };
    let loaded: LoadedConfig;
    try {
      loaded = loadConfig(this.settings.configDir);
    } catch (error) {
      if (!(error instanceof UserError)) throw error;
      // A broken kedge.yaml or file mid-edit: the edge keeps what it serves.
      this.io.record({
        ...base,
        pushed: false,
        error: `${error.message}${error.hint ? ` (fix: ${error.hint})` : ""}`,
        served: this.summary.served,
      });
      return;
    }
    this.watches.reconcile(loaded.edge);
    // A cluster not listed yet (down at the start, or just added) would be pushed without its objects: wait, within the bound.
    const waiting = this.watches.waiting(this.settings.staleAfterMs);
    if (waiting.length > 0) {
      this.io.record({
        ...base,
        pushed: false,
        waiting: waiting.map((w) => w.cluster.name).join(","),
        note: "every live cluster is listed once before the first push",
      });
      this.scheduleStaleBound(Date.now());
      return;
    }
    const now = Date.now();
    const { clusters, stale, dropped } = this.watches.clustersNow(loaded.edge, this.settings.staleAfterMs, now);
    const manifests = [...loaded.manifests];
    const skipped = [...loaded.skipped];
    for (const w of this.watches.all()) {
      const objects = w.objects();
      manifests.push(...objects.manifests);
      skipped.push(...objects.skipped);
    }
    const config: LoadedConfig = { ...loaded, edge: { ...loaded.edge, clusters }, manifests, skipped };
    // Set before the compile: a change that arrives while it runs is judged by what this cycle reads.
    const routed = routedServices(manifests);
    this.routed = {
      services: routed,
      namespaces: new Set([...routed].map((key) => key.slice(0, key.indexOf("/")))),
      idleClusters: this.routed?.idleClusters ?? new Set(clusters.map((c) => c.name)),
    };
    const notes: string[] = [];
    const checked = await compileForEdge(config, this.settings.where, this.settings.checks, (line) => notes.push(line));
    for (const name of dropped)
      notes.push(`! cluster ${name}: its API has not answered for longer than --stale-after; its endpoints are left out until it answers`);
    for (const line of notes) this.io.note(line);
    const counts = {
      rules: checked.result.table.rules.length,
      errors: errorCount(checked.result.diagnostics),
      warnings: checked.result.diagnostics.filter((d) => d.severity === "warning").length,
      stale: stale.join(",") || undefined,
      dropped: dropped.join(",") || undefined,
    };
    this.routed.idleClusters = new Set(
      Object.entries(checked.result.table.clusters ?? {}).flatMap(([name, c]) => (c.account?.idle ? [name] : [])),
    );
    this.warm = true;
    this.hooks.observer?.compiled({ errors: counts.errors, warnings: counts.warnings });
    const table = `${loaded.edge.name}@${checked.result.table.version}`;
    // A follower compiles (it stays warm) but neither pushes nor writes status: the leader does. Asked again
    // right before the push: leadership may have been lost while this cycle compiled.
    const following = () => {
      if (!this.hooks.gate || this.hooks.gate.mayPublish()) return false;
      this.io.record({ ...base, table, pushed: false, leading: false, leader: this.hooks.gate.publisher() || "none yet", ...counts });
      this.scheduleStaleBound(Date.now());
      return true;
    };
    if (following()) return;
    if (checked.refusal) {
      this.hooks.observer?.pushed("refused", new Date());
      this.io.record({
        ...base,
        table,
        pushed: false,
        refused: checked.refusal.reason,
        ...counts,
      });
      this.scheduleStaleBound(Date.now());
      return;
    }
    let current: ServedTable | undefined;
    if (!this.settings.force && checked.result.table.version !== this.summary.served) {
      current = await this.store.use((kv: KvStore) => readCurrentServed(kv, loaded.edge.name, checked.result.table));
      if (current) this.edgeServes = true;
      const drop = largeDropFrom(current, checked.result.table);
      if (drop) {
        this.hooks.observer?.pushed("refused", new Date());
        this.io.record({
          ...base,
          table,
          pushed: false,
          refused: `${drop} (--force pushes it)`,
          ...counts,
        });
        this.scheduleStaleBound(Date.now());
        return;
      }
    }
    if (following()) return;
    const { pushed, held, canary } = await this.push(
      checked.plan,
      loaded.edge.name,
      current,
      canarySettings(this.settings.canary, loaded.edge.rollout),
    );
    this.hooks.observer?.pushed(held ? "held" : pushed ? "pushed" : "unchanged", new Date());
    if (held) {
      this.io.record({ ...base, table, pushed: false, held, ...counts });
      this.scheduleStaleBound(Date.now());
      return;
    }
    const statuses = this.settings.writeStatus ? await this.writeStatus(checked.result, config) : [];
    this.hooks.observer?.statusWritten(statuses);
    for (const r of statuses)
      for (const f of r.failed)
        this.io.note(`! cluster ${r.cluster}: status of ${f.object} not written: ${f.problem}${f.fix ? `\n    fix: ${f.fix}` : ""}`);
    // Written again after a while, also when nothing that counts changes (a busy cluster's churn no longer compiles).
    if (statuses.some((r) => r.failed.length > 0)) this.retryLater("retry of status writes that failed");
    this.io.record({
      ...base,
      table,
      pushed,
      ...(canary ? { canary } : {}),
      ...counts,
      status:
        statuses
          .map((r) => `${r.cluster}:${r.written.length}/${r.written.length + r.unchanged}${r.failed.length ? `!${r.failed.length}` : ""}`)
          .join(",") || undefined,
      tookMs: Date.now() - started,
    });
    this.scheduleStaleBound(Date.now());
  }

  /**
   * Pushes unless the edge already serves this version, or was rolled back by hand since this watch's last push
   * and nothing changed since (then `held` says so); whether it wrote.
   */
  private async push(
    plan: Parameters<typeof pushTable>[1],
    name: string,
    current: ServedTable | undefined,
    canary?: CanarySettings,
  ): Promise<{ pushed: boolean; held?: string; canary?: string }> {
    const next = plan.table.version;
    if (next === this.summary.served) return { pushed: false };
    const waiting = (holder: string) => this.io.note(`waiting for another push of table ${name}: ${holder}`);
    const lastPushed = this.summary.served;
    const outcome = await this.store.use((kv: KvStore) =>
      pushTable(kv, plan, new Date(), {
        waitMs: PUSH_WAIT_MS,
        waiting,
        ...(current !== undefined ? { served: current } : {}),
        ...(canary ? { canary } : {}),
        holdFor: (pointer) => rollbackHold(pointer, next, lastPushed),
      }),
    );
    if (outcome.canary && outcome.changed)
      this.io.note(`table ${name}@${outcome.version} went out as a canary (${outcome.canary.percent}%): the edge promotes or reverts it`);
    if (outcome.historyProblem) this.io.note(`! ${outcome.historyProblem}`);
    if (outcome.held) {
      this.edgeServes = true;
      this.rollbacks.say(name, outcome.held);
      return { pushed: false, held: `rolled back by hand to ${outcome.held.to}` };
    }
    if (outcome.replacedRollback) this.io.note(overLine(name, outcome.replacedRollback.version, outcome.version));
    this.summary.served = outcome.version;
    this.edgeServes = true;
    if (outcome.changed) this.summary.pushes++;
    return {
      pushed: outcome.changed,
      ...(outcome.canary && outcome.changed ? { canary: `${outcome.canary.percent}% beside ${outcome.previous}` } : {}),
    };
  }

  /** The verdict back into each live cluster that answers (a stale one is written once it answers again). */
  private writeStatus(result: CompileResult, config: LoadedConfig): Promise<StatusWrites[]> {
    const answering = this.watches.answering();
    const options = { controller: config.edge.controllerName, objects: config.manifests };
    return Promise.all(answering.map((w) => writeClusterStatuses(w.api, w.listings, result.statuses, options)));
  }
}
