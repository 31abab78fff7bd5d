/**
 * @module What a new table changes in the clusters' settings the table holds (`RouteTable.clusters`): the
 * operator's state from kedge.yaml (Serving, Draining, Disabled), the failover priority, and whether
 * `sync --watch` saw the cluster's API stop answering. These change traffic without touching a rule or a
 * backend's id, so the diff names them on their own.
 */
import type { CompiledCluster, RouteTable } from "../../src/table/route-table";

/** A cluster's state as kedge.yaml spells it (`clusters[].state`). */
export type ClusterState = "Serving" | "Draining" | "Disabled";

/** One cluster whose settings in the table differ; each field is present only when it changed. */
export interface ClusterChange {
  cluster: string;
  state?: { from: ClusterState; to: ClusterState };
  priority?: { from: number; to: number };
  /** When its API stopped answering a watch (absent: it answers). */
  staleSince?: { from?: string; to?: string };
}

export function clusterState(c: CompiledCluster | undefined): ClusterState {
  if (c?.disabled) return "Disabled";
  if (c?.draining) return "Draining";
  return "Serving";
}

/** The clusters whose state, priority or staleness differ between the two tables, by name. */
export function clusterChanges(current: RouteTable | null, next: RouteTable): ClusterChange[] {
  const before = current?.clusters ?? {};
  const after = next.clusters ?? {};
  // A cluster the map leaves out is Serving, priority 0, answering: only the named ones can differ.
  const names = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
  const changes: ClusterChange[] = [];
  for (const cluster of names) {
    const [was, is] = [before[cluster], after[cluster]];
    const change: ClusterChange = { cluster };
    const state = { from: clusterState(was), to: clusterState(is) };
    if (state.from !== state.to) change.state = state;
    const priority = { from: was?.priority ?? 0, to: is?.priority ?? 0 };
    if (priority.from !== priority.to) change.priority = priority;
    if (was?.staleSince !== is?.staleSince)
      change.staleSince = { ...(was?.staleSince ? { from: was.staleSince } : {}), ...(is?.staleSince ? { to: is.staleSince } : {}) };
    if (change.state || change.priority || change.staleSince) changes.push(change);
  }
  return changes;
}

/** What changed of one cluster, in words: "Serving → Draining", "priority 0 → 1", "API unreachable since …". */
export function clusterChangeWords(c: ClusterChange): string[] {
  const words: string[] = [];
  if (c.state) words.push(`${c.state.from} → ${c.state.to}`);
  if (c.priority) words.push(`priority ${c.priority.from} → ${c.priority.to}`);
  if (c.staleSince)
    words.push(
      c.staleSince.to
        ? `API unreachable since ${c.staleSince.to}: its last snapshot is served`
        : "its API answers again: its endpoints are current",
    );
  return words;
}
