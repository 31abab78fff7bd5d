/**
 * @module What `/healthz` and `/readyz` answer. Health is the process's and its watches' liveness: a watch
 * stream that has delivered nothing, not even a bookmark, for longer than its own timeout plus a margin is
 * stuck (its deadline should have ended it); a cluster that has failed for longer than `--stale-after`
 * (its endpoints already left out) is stuck failing, and a restart gives it fresh connections and
 * credentials; a leader that has not renewed its Lease long past the lease duration is stuck too (client-go's
 * HealthzAdaptor). Readiness is the watch loop's: a table published, or found served, or (a follower) compiled.
 */
import { type ClusterWatch, WATCH_SILENCE_LIMIT_MS } from "../kube/cluster-watch";

export interface HealthSources {
  watches(): ClusterWatch[];
  staleAfterMs: number;
  /** The elector's own check (leader-election.ts `check`), when there is one. */
  election?: () => string | null;
  now?: () => number;
}

/** Why the process is not healthy; empty when it is. */
export function healthProblems(sources: HealthSources): string[] {
  const now = (sources.now ?? Date.now)();
  const problems: string[] = [];
  for (const w of sources.watches()) {
    const silent = w.longestSilenceMs(now);
    if (silent > WATCH_SILENCE_LIMIT_MS)
      problems.push(
        `cluster ${w.cluster.name}: a watch stream has delivered nothing for ${Math.round(silent / 1000)} s (its timeout and margin are ${WATCH_SILENCE_LIMIT_MS / 1000} s)`,
      );
    const failingSince = w.listed ? w.staleSince?.getTime() : w.startedAt;
    if (failingSince !== undefined && now - failingSince > sources.staleAfterMs)
      problems.push(
        `cluster ${w.cluster.name}: its API has not answered for ${Math.round((now - failingSince) / 1000)} s, longer than --stale-after`,
      );
  }
  const election = sources.election?.();
  if (election) problems.push(`leader election: ${election}`);
  return problems;
}
