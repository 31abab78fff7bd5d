/**
 * @module Reads that no request can stall. Workers cancel the continuation of a promise when the request
 * that created it goes away, and a KV read may never settle; a request that waited on another request's
 * read could then wait forever. So every wait here is bounded, and a read that outlives its bound is
 * dropped from its slot, so the next request starts its own.
 */

export const TIMED_OUT: unique symbol = Symbol("timed out");

/** The longest a request waits for a read (a cold table, a first shard), and the longest a refresh holds its slot. */
export const READ_LIMIT_MS = 3000;

/** The promise's value, or TIMED_OUT after `ms`. */
export function within<T>(promise: Promise<T>, ms: number): Promise<T | typeof TIMED_OUT> {
  if (ms <= 0) return Promise.resolve(TIMED_OUT);
  let timer: ReturnType<typeof setTimeout> | null = null;
  const timeout = new Promise<typeof TIMED_OUT>((resolve) => {
    timer = setTimeout(() => resolve(TIMED_OUT), ms);
  });
  return Promise.race([promise, timeout]).finally(() => {
    if (timer !== null) clearTimeout(timer);
  });
}

/**
 * One read shared by the requests that arrive while it runs (a cold table, a shard), so a burst of
 * requests reads once. A request joining a read waits at most what is left of the read's bound, and
 * then, if it got nothing, makes its own read with a bound of its own.
 */
export class SharedRead<T> {
  private current: { startedAt: number; promise: Promise<T> } | null = null;

  constructor(private readonly limitMs: number) {}

  /** Whether a read is under way and within its bound (a request arriving now would join it). */
  get busy(): boolean {
    return this.current !== null && Date.now() - this.current.startedAt < this.limitMs;
  }

  private start(read: () => Promise<T>, now: number): { startedAt: number; promise: Promise<T> } {
    const slot = { startedAt: now, promise: read() };
    this.current = slot;
    const clear = () => {
      if (this.current === slot) this.current = null;
    };
    slot.promise.then(clear, clear);
    return slot;
  }

  async get(read: () => Promise<T>): Promise<T | typeof TIMED_OUT> {
    const now = Date.now();
    const joined = this.current !== null && now - this.current.startedAt < this.limitMs ? this.current : null;
    const slot = joined ?? this.start(read, now);
    const result = await within(slot.promise, this.limitMs - (now - slot.startedAt));
    if (result !== TIMED_OUT) return result;
    // The read hung past its bound: it leaves the slot, so nobody else waits on it.
    if (this.current === slot) this.current = null;
    return joined ? within(this.start(read, Date.now()).promise, this.limitMs) : TIMED_OUT;
  }
}
