/**
 * @module Retry budgets (GEP-3388), per backend and per isolate: over `interval`, retries may number
 * `percent` of the backend's requests plus a reserve of `minRetries` per `minInterval` (as Linkerd's
 * budget adds its minimum rate to its ratio). A busy backend that is failing then gets at most about
 * (1 + percent/100) times its load, not (1 + attempts) times. Counts are kept in one-second buckets.
 */
import { type CompiledBackend, type CompiledRetryBudget, DEFAULT_RETRY_BUDGET } from "../table/route-table";

const BUCKET_MS = 1000;

/** Requests and retries per one-second bucket, for the last `size` seconds. */
class Window {
  private readonly requests: number[];
  private readonly retries: number[];
  private second = 0;

  constructor(private readonly size: number) {
    this.requests = new Array<number>(size).fill(0);
    this.retries = new Array<number>(size).fill(0);
  }

  /** Moves to the bucket of `now`, clearing the buckets skipped over. */
  private advance(now: number): number {
    const second = Math.floor(now / BUCKET_MS);
    for (let s = Math.max(this.second + 1, second - this.size + 1); s <= second; s++) {
      this.requests[s % this.size] = 0;
      this.retries[s % this.size] = 0;
    }
    this.second = Math.max(this.second, second);
    return second % this.size;
  }

  add(now: number, retry: boolean): void {
    const at = this.advance(now);
    if (retry) this.retries[at]!++;
    else this.requests[at]!++;
  }

  /** Totals over the last `seconds` buckets (this one included). */
  sum(now: number, seconds: number): { requests: number; retries: number } {
    const at = this.advance(now);
    let requests = 0;
    let retries = 0;
    for (let i = 0; i < Math.min(seconds, this.size); i++) {
      const b = (at - i + this.size) % this.size;
      requests += this.requests[b]!;
      retries += this.retries[b]!;
    }
    return { requests, retries };
  }
}

export class RetryBudget {
  private readonly window: Window;

  constructor(private readonly budget: CompiledRetryBudget) {
    this.window = new Window(Math.max(1, Math.ceil(budget.intervalMs / BUCKET_MS)));
  }

  /** A first try (not a retry) was sent. */
  request(now: number): void {
    this.window.add(now, false);
  }

  /** Whether a retry may be sent now; counts it when so. */
  tryRetry(now: number): boolean {
    const { intervalMs, minIntervalMs, minRetries, percent } = this.budget;
    const total = this.window.sum(now, Math.ceil(intervalMs / BUCKET_MS));
    const reserve = (minRetries * intervalMs) / minIntervalMs;
    // This retry must fit too: n retries are allowed while n ≤ reserve + share.
    const allowed = total.retries + 1 <= reserve + (total.requests * percent) / 100;
    if (allowed) this.window.add(now, true);
    return allowed;
  }
}

const settingsKey = (b: CompiledRetryBudget) => `${b.percent}/${b.intervalMs}/${b.minRetries}/${b.minIntervalMs}`;

/** The isolate's budgets by backend id, kept across table versions; a backend whose settings changed starts afresh. */
export class RetryBudgets {
  private readonly budgets = new Map<string, { key: string; budget: RetryBudget }>();
  /** The budget each backend object of a loaded table was last given: one lookup per request. */
  private readonly known = new WeakMap<CompiledBackend, RetryBudget>();

  of(backend: CompiledBackend): RetryBudget {
    const known = this.known.get(backend);
    if (known) return known;
    const settings = backend.retryBudget ?? DEFAULT_RETRY_BUDGET;
    const key = settingsKey(settings);
    let entry = this.budgets.get(backend.id);
    if (entry?.key !== key) {
      if (this.budgets.size > 10_000) this.budgets.clear();
      entry = { key, budget: new RetryBudget(settings) };
      this.budgets.set(backend.id, entry);
    }
    this.known.set(backend, entry.budget);
    return entry.budget;
  }
}
