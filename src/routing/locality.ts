/**
 * @module Locality preference: serve a request from the clusters nearest to it (same Cloudflare colo,
 * then country, then continent, then anywhere), widening to the next tier while the nearer ones have
 * fewer usable (ready and healthy) endpoints than the threshold, so one recovering endpoint is never
 * handed a region's load.
 */
import type { ClusterLocality, CompiledEndpoint, LocalityPolicy } from "../table/route-table";
import { type WeightedChoice, weightedChoice } from "./weighted-choice";

/** The request's location, from `request.cf` (absent in local runs without `cf`). */
export interface RequestLocation {
  continent?: string;
  country?: string;
  colo?: string;
}

/** Endpoints that may take a request, with their cumulative weights. */
export interface EndpointPool {
  endpoints: CompiledEndpoint[];
  choice: WeightedChoice;
}

const ELSEWHERE = 3;

/** 0: the request's colo is one of the cluster's; 1: its country; 2: its continent; 3: anywhere else. */
export function localityTier(cluster: ClusterLocality | undefined, at: RequestLocation): number {
  if (!cluster) return ELSEWHERE;
  if (at.colo && cluster.colos?.includes(at.colo)) return 0;
  if (at.country && cluster.countries?.includes(at.country)) return 1;
  if (at.continent && cluster.continent === at.continent) return 2;
  return ELSEWHERE;
}

export const poolOf = (endpoints: CompiledEndpoint[]): EndpointPool => ({
  endpoints,
  choice: weightedChoice(endpoints.map((e) => e.weight)),
});

/**
 * The nearest tiers that together hold at least `minHealthyEndpoints` of `usable`; all of them when
 * no tier reaches it. Weights inside the pool stay as compiled (cluster weight per endpoint).
 */
export function nearestPool(policy: LocalityPolicy, usable: CompiledEndpoint[], at: RequestLocation): EndpointPool {
  const tiers = usable.map((e) => localityTier(policy.clusters[e.cluster], at));
  for (let tier = 0; tier < ELSEWHERE; tier++) {
    const near = usable.filter((_, i) => tiers[i]! <= tier);
    if (near.length >= policy.minHealthyEndpoints) return poolOf(near);
  }
  return poolOf(usable);
}

/** The endpoints of `candidates` in the nearest tier any of them is in (a retry may leave the request's tier). */
export function nearestOf(policy: LocalityPolicy, candidates: CompiledEndpoint[], at: RequestLocation): CompiledEndpoint[] {
  const tiers = candidates.map((e) => localityTier(policy.clusters[e.cluster], at));
  const nearest = Math.min(...tiers);
  return candidates.filter((_, i) => tiers[i] === nearest);
}

/**
 * Remembers one backend's pools per request location while health stays the same (`generation`);
 * bounded, since colos × countries is finite but large.
 */
export class PoolCache {
  private readonly pools = new Map<string, EndpointPool>();
  private generation = -1;
  constructor(private readonly limit = 512) {}

  get(at: RequestLocation, generation: number, build: () => EndpointPool): EndpointPool {
    if (generation !== this.generation) {
      this.pools.clear();
      this.generation = generation;
    }
    const key = `${at.colo ?? ""}|${at.country ?? ""}|${at.continent ?? ""}`;
    let pool = this.pools.get(key);
    if (!pool) {
      if (this.pools.size >= this.limit) this.pools.clear();
      pool = build();
      this.pools.set(key, pool);
    }
    return pool;
  }
}
