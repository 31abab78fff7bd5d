/**
 * @module The one health view of an isolate: whether an endpoint may take traffic now. It joins what the
 * active checks found (the health store's unhealthy set, read with the table pointer) with what this
 * isolate saw itself (passive ejection after failed answers, timeouts and failed connections). Every
 * choice reads it: new traffic, pinned sessions, locality tiers, retries and mirrors; every try feeds it.
 */
import type { EndpointHealth } from "../routing/endpoint-pool";
import type { CompiledEndpoint } from "../table/route-table";
import { OutlierDetector, type Outcome } from "./outlier-detector";

export type { Outcome };

export class HealthView implements EndpointHealth {
  private active: ReadonlySet<string> = new Set();
  private readonly passive = new OutlierDetector(() => this.generation++);
  /** Bumped whenever the usable set may have changed: endpoint pools built from it are rebuilt. */
  generation = 0;

  /** The active checks' unhealthy endpoints (replaces the previous set). */
  setActive(unhealthy: ReadonlySet<string>): void {
    if (unhealthy.size === this.active.size && [...unhealthy].every((id) => this.active.has(id))) return;
    this.active = unhealthy;
    this.generation++;
  }

  /** Brings back endpoints whose ejection is over; call before choosing. */
  refresh(now: number): void {
    this.passive.release(now);
  }

  usable(endpoint: CompiledEndpoint): boolean {
    return !this.active.has(endpoint.id) && !this.passive.isEjected(endpoint.id);
  }

  /** Whether every endpoint is usable: selection then skips the per-endpoint checks. */
  get allUsable(): boolean {
    return this.active.size === 0 && !this.passive.anyEjected;
  }

  /** For the status endpoint: the two inputs apart. */
  describe(endpoint: CompiledEndpoint): { healthy: boolean; ejected: boolean } {
    return { healthy: !this.active.has(endpoint.id), ejected: this.passive.isEjected(endpoint.id) };
  }

  /** One try's outcome, from any send (forward, retry, mirror). `peers` are the endpoint's backend's endpoints. */
  report(endpoint: CompiledEndpoint, outcome: Outcome, peers: CompiledEndpoint[], now: number): void {
    this.passive.record(endpoint, outcome, peers, now);
  }
}
