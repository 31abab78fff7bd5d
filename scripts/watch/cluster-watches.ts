/**
 * @module The live clusters' watches of a `sync --watch`, kept in step with kedge.yaml: one ClusterWatch
 * per live cluster, started and stopped as clusters come and go; a cluster pointed at another context or
 * kubeconfig keeps its old watch's snapshot until the new one has listed. What a cycle asks of them: which
 * are not listed yet, which are stale (and past `--stale-after`, left out as if disabled), and when the next
 * stale one passes that bound.
 */
import type { ClusterSettings, EdgeConfig } from "../../src/compile/input/edge-config";
import type { ClusterWatch } from "../kube/cluster-watch";

const ageSeconds = (since: Date, now: number) => Math.round((now - since.getTime()) / 1000);

/** Since when a watch's cluster has not answered: never listed counts from its start. */
const staleSince = (w: ClusterWatch): Date | null => (w.listed ? w.staleSince : new Date(w.startedAt));

/** The watches of kedge.yaml's live clusters, by cluster name. */
export class ClusterWatches {
  private readonly watches = new Map<string, ClusterWatch>();
  /** A cluster re-pointed in kedge.yaml (another context or kubeconfig): its new watch, until it has listed once. */
  private readonly replacing = new Map<string, ClusterWatch>();

  constructor(private readonly start: (cluster: ClusterSettings) => ClusterWatch) {}

  /** The watches whose snapshots a cycle compiles. */
  all(): ClusterWatch[] {
    return [...this.watches.values()];
  }

  /** Starts a watch for each live cluster `edge` names and stops those it no longer names. */
  reconcile(edge: EdgeConfig): void {
    const live = edge.clusters.filter((c) => c.kubeContext);
    const same = (c: ClusterSettings, w: ClusterWatch) => c.kubeContext === w.cluster.kubeContext && c.kubeconfig === w.cluster.kubeconfig;
    for (const [name, next] of this.replacing) {
      const cluster = live.find((c) => c.name === name);
      if (!cluster || !same(cluster, next)) {
        next.stop();
        this.replacing.delete(name);
      } else if (next.listed) {
        this.watches.get(name)?.stop();
        this.watches.set(name, next);
        this.replacing.delete(name);
      }
    }
    for (const [name, w] of this.watches) {
      const cluster = live.find((c) => c.name === name);
      if (!cluster) {
        w.stop();
        this.watches.delete(name);
      } else if (!same(cluster, w) && !this.replacing.has(name)) this.replacing.set(name, this.start(cluster));
    }
    for (const cluster of live) if (!this.watches.has(cluster.name)) this.watches.set(cluster.name, this.start(cluster));
  }

  stop(): void {
    for (const w of [...this.watches.values(), ...this.replacing.values()]) w.stop();
  }

  /** Clusters not listed yet, within the stale bound: a push now would leave their objects out. */
  waiting(staleAfterMs: number, now = Date.now()): ClusterWatch[] {
    return this.all().filter((w) => !w.listed && now - w.startedAt < staleAfterMs);
  }

  /** Clusters that answer: their status can be written. */
  answering(): ClusterWatch[] {
    return this.all().filter((w) => w.listed && w.staleSince === null);
  }

  /** The clusters as a cycle compiles them: stale ones marked, those stale past the bound disabled. */
  clustersNow(edge: EdgeConfig, staleAfterMs: number, now: number): { clusters: ClusterSettings[]; stale: string[]; dropped: string[] } {
    const stale: string[] = [];
    const dropped: string[] = [];
    const clusters = edge.clusters.map((c) => {
      const w = this.watches.get(c.name);
      const since = w ? staleSince(w) : null;
      if (!since) return c;
      stale.push(`${c.name}(${ageSeconds(since, now)}s)`);
      if (now - since.getTime() < staleAfterMs) return { ...c, staleSince: since.toISOString() };
      dropped.push(c.name);
      return { ...c, staleSince: since.toISOString(), state: "Disabled" as const };
    });
    return { clusters, stale, dropped };
  }

  /** In how many ms the oldest stale cluster passes the bound (null when none will). */
  nextStaleBoundMs(staleAfterMs: number, now: number): number | null {
    const due = this.all()
      .map(staleSince)
      .filter((d): d is Date => d !== null)
      .map((d) => d.getTime() + staleAfterMs - now)
      .filter((ms) => ms > 0);
    return due.length > 0 ? Math.min(...due) : null;
  }
}
