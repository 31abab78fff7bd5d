/**
 * @module Passive health, per isolate: an endpoint that fails several requests in a row (connection
 * error, timeout or 5xx) is ejected for a while, longer each time; a success clears its count. Never
 * more than a set share of a backend's endpoints is ejected, so a sick backend still gets traffic.
 */
import type { CompiledEndpoint } from "../table/route-table";

export interface OutlierSettings {
  consecutiveFailures: number;
  baseEjectionMs: number;
  maxEjectionMs: number;
  /** At most this share (percent) of one backend's endpoints is ejected at a time. */
  maxEjectedPercent: number;
}

export const DEFAULT_OUTLIER_SETTINGS: OutlierSettings = {
  consecutiveFailures: 3,
  baseEjectionMs: 10_000,
  maxEjectionMs: 300_000,
  maxEjectedPercent: 50,
};

interface EndpointHealth {
  failures: number;
  ejectedUntil: number;
  ejections: number;
}

/** Endpoint ids are `<cluster>/<host>:<port>`; more than this many tracked means stale ids: start over. */
const MAX_TRACKED = 10_000;

export class OutlierDetector {
  private readonly health = new Map<string, EndpointHealth>();
  private ejectedCount = 0;

  constructor(private readonly settings: OutlierSettings = DEFAULT_OUTLIER_SETTINGS) {}

  isEjected(id: string, now: number): boolean {
    if (this.ejectedCount === 0) return false;
    const h = this.health.get(id);
    if (!h || h.ejectedUntil === 0) return false;
    if (now < h.ejectedUntil) return true;
    h.ejectedUntil = 0; // served its time: back in the pool, on probation (one more failure ejects again)
    h.failures = this.settings.consecutiveFailures - 1;
    this.ejectedCount--;
    return false;
  }

  /** Whether any endpoint is ejected (lets selection skip filtering in the common case). */
  get anyEjected(): boolean {
    return this.ejectedCount > 0;
  }

  recordSuccess(id: string): void {
    const h = this.health.get(id);
    if (h && h.ejectedUntil === 0) {
      h.failures = 0;
      h.ejections = Math.max(0, h.ejections - 1);
    }
  }

  /** Counts a failure of `endpoint`, one of `peers` (its backend's endpoints); ejects it when due and allowed. */
  recordFailure(endpoint: CompiledEndpoint, peers: CompiledEndpoint[], now: number): void {
    if (this.health.size > MAX_TRACKED) {
      this.health.clear();
      this.ejectedCount = 0;
    }
    const h = this.health.get(endpoint.id) ?? { failures: 0, ejectedUntil: 0, ejections: 0 };
    this.health.set(endpoint.id, h);
    if (h.ejectedUntil !== 0) return;
    h.failures++;
    if (h.failures < this.settings.consecutiveFailures) return;
    const ejected = peers.filter((p) => p.id !== endpoint.id && this.isEjected(p.id, now)).length;
    if (((ejected + 1) / Math.max(1, peers.length)) * 100 > this.settings.maxEjectedPercent) return;
    h.ejectedUntil = now + Math.min(this.settings.maxEjectionMs, this.settings.baseEjectionMs * 2 ** h.ejections);
    h.ejections++;
    h.failures = 0;
    this.ejectedCount++;
  }
}
