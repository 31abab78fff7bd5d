/**
 * @module Which endpoint of a chosen backend takes a request, and which takes a retry. Only endpoints
 * that take new traffic (ready, not terminating, weight above 0, not in a draining cluster) and that the
 * health view calls usable take part; with cluster priorities, only the lowest priorities that have enough
 * usable endpoints; with a locality policy, of those only the nearest tiers that have enough. When no
 * endpoint of the backend is usable, all of them are tried rather than none (Envoy's panic threshold).
 */
import type { CompiledEndpoint } from "../table/route-table";
import { type EndpointPool, nearestOf, nearestPool, poolOf, type RequestLocation } from "./locality";
import type { PreparedBackend, PreparedTable } from "./prepared-table";
import { lowestPriorityOf, preferredByPriority } from "./priority";
import { pickWeighted, weightedChoice } from "./weighted-choice";

/** What selection needs of endpoint health (the Worker's health view). */
export interface EndpointHealth {
  /** Changes whenever the usable set may have changed: pools built before are rebuilt. */
  readonly generation: number;
  /** Whether every endpoint is usable (the common case: no filtering). */
  readonly allUsable: boolean;
  usable(endpoint: CompiledEndpoint): boolean;
}

/** Every endpoint usable: what a table without health data (the sync's explain, unit tests) chooses by. */
export const ALL_HEALTHY: EndpointHealth = { generation: 0, allUsable: true, usable: () => true };

function buildPool(prepared: PreparedTable, backend: PreparedBackend, at: RequestLocation, health: EndpointHealth): EndpointPool {
  const eligible = backend.pool.endpoints;
  const usable = health.allUsable ? eligible : eligible.filter((e) => health.usable(e));
  // Panic: with no usable endpoint, balance over all of them rather than answering without trying.
  const candidates = preferredByPriority(prepared.table, usable.length > 0 ? usable : eligible);
  const policy = prepared.table.locality;
  return policy ? nearestPool(policy, candidates, at) : candidates === eligible ? backend.pool : poolOf(candidates);
}

/** The endpoints a new request from `at` is balanced over (cached per location while health is unchanged). */
export function poolFor(prepared: PreparedTable, backend: PreparedBackend, at: RequestLocation, health: EndpointHealth): EndpointPool {
  if (health.allUsable && !prepared.table.locality && !prepared.table.failover) return backend.pool;
  return backend.nearby.get(at, health.generation, () => buildPool(prepared, backend, at, health));
}

/** An endpoint of the pool by weight, or null when it is empty. */
export function pickFrom(pool: EndpointPool, random: number): CompiledEndpoint | null {
  return pool.endpoints[pickWeighted(pool.choice, random)] ?? null;
}

/** An endpoint for a new request: poolFor, then a weighted pick. */
export function pickEndpoint(
  prepared: PreparedTable,
  backend: PreparedBackend,
  random: number,
  at: RequestLocation = {},
  health: EndpointHealth = ALL_HEALTHY,
): CompiledEndpoint | null {
  return pickFrom(poolFor(prepared, backend, at, health), random);
}

/**
 * An endpoint to retry on after `tried` failed: usable and untried, within the priorities new traffic
 * would use among them (a standby once the primaries lack enough), in a cluster not tried yet when one can
 * serve, the nearest such tier first (a retry may leave the request's tier); with none usable, any
 * untried one (panic). Null when every endpoint was tried.
 */
export function failoverEndpoint(
  prepared: PreparedTable,
  backend: PreparedBackend,
  at: RequestLocation,
  health: EndpointHealth,
  tried: readonly CompiledEndpoint[],
  random: number,
): CompiledEndpoint | null {
  const untried = backend.pool.endpoints.filter((e) => !tried.some((t) => t.id === e.id));
  const triedClusters = new Set(tried.map((t) => t.cluster));
  const elsewhere = (list: CompiledEndpoint[]) => list.filter((e) => !triedClusters.has(e.cluster));
  // The priorities new traffic would use among the untried (a standby only once the primaries lack
  // enough), so a retry never piles onto a lone recovering primary.
  const usable = preferredByPriority(
    prepared.table,
    untried.filter((e) => health.usable(e)),
  );
  const any = lowestPriorityOf(prepared.table, untried);
  const policy = prepared.table.locality;
  for (const candidates of [elsewhere(usable), usable, elsewhere(any), any]) {
    if (candidates.length === 0) continue;
    const nearest = policy ? nearestOf(policy, candidates, at) : candidates;
    return nearest[pickWeighted(weightedChoice(nearest.map((e) => e.weight)), random)] ?? null;
  }
  return null;
}
