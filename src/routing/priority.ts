/**
 * @module Failover priority between clusters (kedge.yaml `priority`, 0 first): a backend is served by the
 * clusters of its lowest priority while they have enough usable endpoints, and by the next priority too
 * once they do not (cumulatively, as locality widens its tiers). Priority is chosen before locality: a
 * standby cluster near the request does not take it while a primary one can.
 */
import type { CompiledEndpoint, RouteTable } from "../table/route-table";

export const priorityOf = (table: RouteTable, endpoint: CompiledEndpoint): number => table.clusters?.[endpoint.cluster]?.priority ?? 0;

/**
 * The endpoints of the lowest priorities that together have at least the failover threshold of
 * `usable`; all of them when no set of priorities reaches it.
 */
export function preferredByPriority(table: RouteTable, usable: CompiledEndpoint[]): CompiledEndpoint[] {
  const failover = table.failover;
  if (!failover || usable.length === 0) return usable;
  const levels = usable.map((e) => priorityOf(table, e));
  for (const level of [...new Set(levels)].sort((a, b) => a - b)) {
    const within = usable.filter((_, i) => levels[i]! <= level);
    if (within.length >= failover.minHealthyEndpoints) return within.length === usable.length ? usable : within;
  }
  return usable;
}

/** The endpoints of `candidates` at the lowest priority any of them has (where a retry goes first). */
export function lowestPriorityOf(table: RouteTable, candidates: CompiledEndpoint[]): CompiledEndpoint[] {
  if (!table.failover || candidates.length === 0) return candidates;
  const levels = candidates.map((e) => priorityOf(table, e));
  const lowest = Math.min(...levels);
  return candidates.filter((_, i) => levels[i] === lowest);
}
