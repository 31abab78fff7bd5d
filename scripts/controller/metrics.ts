/**
 * @module What `sync --watch` shows Prometheus on `/metrics` (text format, prom-client): client-go's
 * `leader_election_master_status` gauge, the process's own (process_*, nodejs_*), and kedge's series,
 * each named with its unit as Prometheus' naming practice asks (`_seconds`, `_total`): per cluster the
 * watches' age and staleness, the objects of each kind in its snapshot, changes a relist found that its
 * watch had missed and status writes by result; for the table, pushes by result, the last successful push,
 * and the last compile's errors and warnings. Cluster series are read from the watches at each scrape.
 */
import { collectDefaultMetrics, Counter, Gauge, Registry } from "prom-client";
import type { ClusterWatch } from "../kube/cluster-watch";
import type { StatusWrites } from "../kube/status/writer";
import type { PushResult, WatchObserver } from "../watch/watch-loop";

const PUSH_RESULTS: PushResult[] = ["pushed", "unchanged", "refused", "held", "failed"];

/** The process's registry and kedge's series in it; the watch loop's observer (it counts each cycle's outcome). */
export class ControllerMetrics implements WatchObserver {
  readonly registry = new Registry();
  private readonly pushes: Counter<"result">;
  private readonly lastPush: Gauge;
  private readonly diagnostics: Gauge<"severity">;
  private readonly statusWrites: Counter<"cluster" | "result">;
  private leader?: Gauge<"name">;
  /** Missed changes already counted, per cluster (a watch keeps its own running count). */
  private readonly missedSeen = new Map<ClusterWatch, number>();

  constructor(watches: () => ClusterWatch[], now: () => number = Date.now) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry });
    const seconds = (ms: number) => Math.max(0, ms) / 1000;
    new Gauge({
      name: "kedge_cluster_watch_event_age_seconds",
      help: "Seconds since the cluster's API last delivered anything to kedge's list and watches (a list, an event or a bookmark).",
      labelNames: ["cluster"],
      registers,
      collect() {
        this.reset();
        for (const w of watches()) this.set({ cluster: w.cluster.name }, seconds(now() - w.heardAt));
      },
    });
    new Gauge({
      name: "kedge_cluster_stale_seconds",
      help: "Seconds since the cluster's API stopped answering (or since the watch started, before its first list); 0 while it answers. Past --stale-after its endpoints are left out.",
      labelNames: ["cluster"],
      registers,
      collect() {
        this.reset();
        for (const w of watches()) {
          const since = w.listed ? w.staleSince?.getTime() : w.startedAt;
          this.set({ cluster: w.cluster.name }, since === undefined ? 0 : seconds(now() - since));
        }
      },
    });
    new Gauge({
      name: "kedge_cluster_objects",
      help: "Objects of each kind in the cluster's snapshot, as last listed and watched.",
      labelNames: ["cluster", "kind"],
      registers,
      collect() {
        this.reset();
        for (const w of watches()) for (const [kind, count] of w.counts()) this.set({ cluster: w.cluster.name, kind }, count);
      },
    });
    const missedSeen = this.missedSeen;
    new Counter({
      name: "kedge_watch_missed_changes_total",
      help: "Changes a periodic relist (--resync-period) found that the cluster's watch had not delivered.",
      labelNames: ["cluster"],
      registers,
      collect() {
        for (const w of watches()) {
          const delta = w.missedChanges - (missedSeen.get(w) ?? 0);
          missedSeen.set(w, w.missedChanges);
          this.inc({ cluster: w.cluster.name }, delta);
        }
      },
    });
    this.pushes = new Counter({
      name: "kedge_pushes_total",
      help: "Pushes of the route table by result: pushed (written), unchanged (the edge already served it), refused (a schema error or a large drop), held (rolled back by hand), failed (the store failed).",
      labelNames: ["result"],
      registers,
    });
    for (const result of PUSH_RESULTS) this.pushes.inc({ result }, 0);
    this.lastPush = new Gauge({
      name: "kedge_last_successful_push_timestamp_seconds",
      help: "When this process last pushed the table or found the edge already serving it (Unix time); 0 before.",
      registers,
    });
    this.lastPush.set(0);
    this.diagnostics = new Gauge({
      name: "kedge_compile_diagnostics",
      help: "Errors and warnings in the report of the last compile.",
      labelNames: ["severity"],
      registers,
    });
    this.statusWrites = new Counter({
      name: "kedge_status_writes_total",
      help: "Objects whose status was written back to the cluster, by result: written, unchanged, skipped (not kedge's), failed.",
      labelNames: ["cluster", "result"],
      registers,
    });
  }

  /** client-go's gauge for the Lease `name`: 1 while this process leads, 0 while it follows. */
  leading(name: string, leads: boolean): void {
    this.leader ??= new Gauge({
      name: "leader_election_master_status",
      help: "Whether this process leads the Lease `name`: 1 leading, 0 a standby.",
      labelNames: ["name"],
      registers: [this.registry],
    });
    this.leader.set({ name }, leads ? 1 : 0);
  }

  compiled(counts: { errors: number; warnings: number }): void {
    this.diagnostics.set({ severity: "error" }, counts.errors);
    this.diagnostics.set({ severity: "warning" }, counts.warnings);
  }

  pushed(result: PushResult, at: Date): void {
    this.pushes.inc({ result });
    if (result === "pushed" || result === "unchanged") this.lastPush.set(at.getTime() / 1000);
  }

  statusWritten(reports: StatusWrites[]): void {
    for (const r of reports) {
      const add = (result: string, n: number) => n > 0 && this.statusWrites.inc({ cluster: r.cluster, result }, n);
      add("written", r.written.length);
      add("unchanged", r.unchanged);
      add("skipped", r.skipped.length);
      add("failed", r.failed.length);
    }
  }

  /** The exposition, as `/metrics` answers it. */
  async text(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
