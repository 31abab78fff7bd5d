/** @module One session as the SessionStore keeps it, and when it ends. Pure: shared by the store and the isolate cache. */

export interface SessionRecord {
  /** Table backend id the session is pinned to. */
  backend: string;
  /** Endpoint id (`<cluster>/<host>:<port>`) inside that backend. */
  endpoint: string;
  createdAt: number;
  lastSeen: number;
  /** The table version the session started on (sealed in its pin): it stays there while a canary of it runs. */
  version?: string;
  absoluteTimeoutMs?: number;
  idleTimeoutMs?: number;
}

/** When the session ends if nothing else happens: the earlier of its absolute and idle limits; null = never. */
export function expiresAt(r: SessionRecord): number | null {
  const limits = [
    r.absoluteTimeoutMs !== undefined ? r.createdAt + r.absoluteTimeoutMs : undefined,
    r.idleTimeoutMs !== undefined ? r.lastSeen + r.idleTimeoutMs : undefined,
  ].filter((t): t is number => t !== undefined);
  return limits.length > 0 ? Math.min(...limits) : null;
}

export function isExpired(r: SessionRecord, now: number): boolean {
  const end = expiresAt(r);
  return end !== null && now >= end;
}
