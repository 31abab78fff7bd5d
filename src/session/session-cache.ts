/**
 * @module The isolate's cache of hot sessions: a sticky request served from here pays no Durable Object
 * round trip. Bounded (least recently used out first); last-seen times are written behind.
 */
import type { SessionRecord } from "./session-record";

export interface CachedSession {
  record: SessionRecord;
  /** The exact token this isolate verified (or issued) for the session: presented again, it needs no HMAC. */
  token: string;
  /** The last-seen time the SessionStore was last told about. */
  persistedLastSeen: number;
}

export const SESSION_CACHE_LIMIT = 10_000;
/** Longest a last-seen update waits before it is written to the SessionStore. */
export const WRITE_BEHIND_MS = 10_000;

export class SessionCache {
  private readonly entries = new Map<string, CachedSession>();
  constructor(private readonly limit = SESSION_CACHE_LIMIT) {}

  get(key: string): CachedSession | undefined {
    const entry = this.entries.get(key);
    if (entry) {
      // Re-insert: Map keeps insertion order, so the first key is always the least recently used.
      this.entries.delete(key);
      this.entries.set(key, entry);
    }
    return entry;
  }

  /** The entry, without counting as a use. */
  peek(key: string): CachedSession | undefined {
    return this.entries.get(key);
  }

  set(key: string, entry: CachedSession): void {
    this.entries.delete(key);
    this.entries.set(key, entry);
    if (this.entries.size > this.limit) this.entries.delete(this.entries.keys().next().value as string);
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }
}

/** How long a last-seen update may wait: a quarter of the idle timeout, at most WRITE_BEHIND_MS. */
export function writeBehindMs(record: SessionRecord): number {
  return record.idleTimeoutMs !== undefined ? Math.min(WRITE_BEHIND_MS, record.idleTimeoutMs / 4) : WRITE_BEHIND_MS;
}
