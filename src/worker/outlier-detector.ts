/**
 * @module Passive health, per isolate: an endpoint that fails several requests in a row is ejected for a
 * while, longer each time; a success clears its count. A 5xx answer or a timeout may be the request's
 * fault, so at most a set share of a backend's endpoints is ejected for those; an endpoint that cannot be
 * connected to at all is ejected whatever the share (every endpoint down is the panic case of selection).
 */
import type { CompiledEndpoint } from "../table/route-table";

export interface OutlierSettings {
  consecutiveFailures: number;
  baseEjectionMs: number;
  maxEjectionMs: number;
  /** At most this share (percent) of one backend's endpoints is ejected at a time for answers and timeouts. */
  maxEjectedPercent: number;
}

export const DEFAULT_OUTLIER_SETTINGS: OutlierSettings = {
  consecutiveFailures: 3,
  baseEjectionMs: 10_000,
  maxEjectionMs: 300_000,
  maxEjectedPercent: 50,
};

/** What one try told of an endpoint: it answered (below 500), it failed (5xx, timeout), or it could not be reached. */
export type Outcome = "ok" | "failed" | "unreachable";

interface EndpointRecord {
  failures: number;
  ejectedUntil: number;
  ejections: number;
}

/** Endpoint ids are `<cluster>/<host>:<port>`; more than this many tracked means stale ids: start over. */
const MAX_TRACKED = 10_000;

export class OutlierDetector {
  private readonly records = new Map<string, EndpointRecord>();
  private ejected = 0;
  /** The earliest time an ejection ends (Infinity when none is ejected). */
  private nextReturn = Number.POSITIVE_INFINITY;

  constructor(
    /** Told whenever the set of ejected endpoints changes. */
    private readonly changed: () => void = () => {},
    private readonly settings: OutlierSettings = DEFAULT_OUTLIER_SETTINGS,
  ) {}

  /** Brings ejected endpoints whose time is up back (on probation: one more failure ejects them again). */
  release(now: number): void {
    if (now < this.nextReturn) return;
    this.nextReturn = Number.POSITIVE_INFINITY;
    for (const record of this.records.values()) {
      if (record.ejectedUntil === 0) continue;
      if (now >= record.ejectedUntil) {
        record.ejectedUntil = 0;
        record.failures = this.settings.consecutiveFailures - 1;
        this.ejected--;
      } else this.nextReturn = Math.min(this.nextReturn, record.ejectedUntil);
    }
    this.changed();
  }

  isEjected(id: string): boolean {
    return this.ejected > 0 && (this.records.get(id)?.ejectedUntil ?? 0) !== 0;
  }

  get anyEjected(): boolean {
    return this.ejected > 0;
  }

  record(endpoint: CompiledEndpoint, outcome: Outcome, peers: CompiledEndpoint[], now: number): void {
    if (outcome === "ok") {
      const r = this.records.get(endpoint.id);
      if (r && r.ejectedUntil === 0) {
        r.failures = 0;
        r.ejections = Math.max(0, r.ejections - 1);
      }
      return;
    }
    if (this.records.size > MAX_TRACKED) {
      this.records.clear();
      this.ejected = 0;
      this.nextReturn = Number.POSITIVE_INFINITY;
    }
    const r = this.records.get(endpoint.id) ?? { failures: 0, ejectedUntil: 0, ejections: 0 };
    this.records.set(endpoint.id, r);
    if (r.ejectedUntil !== 0) return;
    r.failures++;
    if (r.failures < this.settings.consecutiveFailures) return;
    if (outcome === "failed") {
      const others = peers.filter((p) => p.id !== endpoint.id && this.isEjected(p.id)).length;
      if (((others + 1) / Math.max(1, peers.length)) * 100 > this.settings.maxEjectedPercent) return;
    }
    r.ejectedUntil = now + Math.min(this.settings.maxEjectionMs, this.settings.baseEjectionMs * 2 ** r.ejections);
    r.ejections++;
    r.failures = 0;
    this.ejected++;
    this.nextReturn = Math.min(this.nextReturn, r.ejectedUntil);
    this.changed();
  }
}
