/**
 * @module Leader election on a Lease, with client-go's `tools/leaderelection` semantics (the JavaScript
 * client has none). A candidate tries every retry period (jittered by 1.2, as client-go's JitterUntil): it
 * reads the Lease, and takes it when nobody holds it, when it holds it already, or when the record has not
 * changed for the lease's duration *as measured by its own clock* since it last saw it change (no
 * candidate trusts another's timestamps, so clock skew between machines does not matter); taking it
 * counts one more leaseTransition. The leader renews every retry period, and stops leading when it has
 * not renewed within the renew deadline (its followers wait the longer lease duration before they take
 * over) or when it finds another holder. On stop (SIGTERM) the leader releases the Lease as client-go's
 * ReleaseOnCancel does (no holder, leaseDurationSeconds 1), so a successor takes it at its next try.
 * Unlike a controller-runtime manager, which exits when it loses the Lease, kedge goes back to being a
 * candidate: its watches stay warm. Like client-go, this does not fence: a push that started while
 * leading may finish after the lease was lost, which is why the KV push lease stays as a second guard.
 */
import { ApiUnreachable } from "../kube/api-client";
import { UserError } from "../lib/user-error";
import { LeaseConflict, type LeaseLock, type LeaseRecord, microTime, type ReadLease } from "./lease-lock";

/** client-go's core defaults, in ms. */
export const CLIENT_GO_TIMINGS = { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 } as const;
/** client-go's JitterFactor: a candidate's retry waits between 1 and 2.2 retry periods. */
export const JITTER_FACTOR = 1.2;

export interface ElectionTimings {
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
}

/** What client-go's NewLeaderElector refuses in a configuration, said with the flags' names; null when sound. */
export function timingsProblem(t: ElectionTimings): string | null {
  if (t.leaseDurationMs < 1000) return "--leader-elect-lease-duration must be at least 1s (the Lease counts whole seconds)";
  if (t.leaseDurationMs <= t.renewDeadlineMs) return "--leader-elect-lease-duration must be longer than --leader-elect-renew-deadline";
  if (t.renewDeadlineMs <= JITTER_FACTOR * t.retryPeriodMs)
    return `--leader-elect-renew-deadline must be longer than ${JITTER_FACTOR} × --leader-elect-retry-period`;
  return null;
}

/** Told as leadership changes. */
export interface LeaderCallbacks {
  startedLeading(): void;
  stoppedLeading(why: string): void;
  /** Another (or the first) holder was seen; "" when the Lease is free. */
  newLeader?(identity: string): void;
  /** A problem with the Lease worth a line (said once until it clears). */
  problem?(line: string): void;
}

export interface ElectorOptions {
  now?: () => number;
  random?: () => number;
}

/** One candidate of the election: `run` campaigns, leads and releases; `isLeader` gates the pushes. */
export class LeaderElector {
  private observed: LeaseRecord | null = null;
  private observedRaw = "";
  /** When this candidate last saw the record change, by its own clock. */
  private observedTime = 0;
  private leading = false;
  /** When the leader last renewed (or took) the Lease. */
  private renewedAt = 0;
  private reportedLeader: string | null = null;
  private answered = false;
  private lastProblem = "";
  private readonly now: () => number;
  private readonly random: () => number;

  constructor(
    private readonly lock: LeaseLock,
    readonly identity: string,
    readonly timings: ElectionTimings,
    private readonly callbacks: LeaderCallbacks,
    options: ElectorOptions = {},
  ) {
    this.now = options.now ?? Date.now;
    this.random = options.random ?? Math.random;
  }

  isLeader(): boolean {
    return this.leading;
  }

  /** The holder last seen ("" when none). */
  leader(): string {
    return this.observed?.holderIdentity ?? "";
  }

  /**
   * client-go's HealthzAdaptor check: a leader that has not renewed for longer than the lease duration
   * plus `toleranceMs` is stuck (it should have stopped leading); null when well.
   */
  check(toleranceMs = 20_000): string | null {
    if (!this.leading || this.now() - this.renewedAt <= this.timings.leaseDurationMs + toleranceMs) return null;
    return `leading without having renewed the ${this.lock.describe} for ${Math.round((this.now() - this.renewedAt) / 1000)} s`;
  }

  /**
   * Campaigns, leads and campaigns again until `signal`; then releases the Lease if it holds it. Rejects
   * only when the first answer of the API server says the election cannot work there (a refusal, a
   * missing namespace): that is a UserError to stop on, not a reason to retry for ever.
   */
  async run(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      if (!this.leading) {
        const acquired = await this.tryAcquireOrRenew(this.timings.renewDeadlineMs);
        if (acquired) {
          this.leading = true;
          this.renewedAt = this.now();
          this.callbacks.startedLeading();
          continue;
        }
        await sleep(this.timings.retryPeriodMs * (1 + this.random() * JITTER_FACTOR), signal);
        continue;
      }
      await sleep(this.timings.retryPeriodMs, signal);
      if (signal.aborted) break;
      const left = this.renewedAt + this.timings.renewDeadlineMs - this.now();
      const renewed = left > 0 && (await this.tryAcquireOrRenew(left));
      if (renewed) this.renewedAt = this.now();
      else if (this.observed && this.observed.holderIdentity !== "" && this.observed.holderIdentity !== this.identity)
        this.stopLeading(`the Lease is held by ${this.observed.holderIdentity}`);
      else if (this.now() - this.renewedAt >= this.timings.renewDeadlineMs)
        this.stopLeading(`could not renew the ${this.lock.describe} within the renew deadline (${this.timings.renewDeadlineMs / 1000} s)`);
    }
    if (this.leading) {
      await this.release();
      this.stopLeading("stopping: the Lease is released for a successor");
    }
  }

  private stopLeading(why: string): void {
    if (!this.leading) return;
    this.leading = false;
    this.callbacks.stoppedLeading(why);
  }

  private observe(read: ReadLease, at: number): void {
    if (read.raw !== this.observedRaw) {
      this.observed = read.record;
      this.observedRaw = read.raw;
      this.observedTime = at;
    }
    const holder = read.record.holderIdentity;
    if (holder !== this.reportedLeader) {
      this.reportedLeader = holder;
      this.callbacks.newLeader?.(holder);
    }
  }

  /** One try: take or renew the Lease; whether this candidate holds it now. */
  private async tryAcquireOrRenew(timeoutMs: number): Promise<boolean> {
    const now = this.now();
    const ours: LeaseRecord = {
      holderIdentity: this.identity,
      leaseDurationSeconds: Math.max(1, Math.floor(this.timings.leaseDurationMs / 1000)),
      acquireTime: microTime(now),
      renewTime: microTime(now),
      leaseTransitions: 0,
    };
    try {
      const current = await this.lock.get(timeoutMs);
      if (!current) {
        await this.lock.create(ours, timeoutMs);
        this.observe({ record: ours, raw: JSON.stringify(ours) }, this.now());
        return this.succeeded();
      }
      this.observe(current, now);
      const held = current.record.holderIdentity;
      const durationMs = (current.record.leaseDurationSeconds || ours.leaseDurationSeconds) * 1000;
      if (held !== "" && held !== this.identity && this.observedTime + durationMs > now) return this.succeeded(false);
      const next: LeaseRecord =
        held === this.identity
          ? {
              ...ours,
              ...(current.record.acquireTime ? { acquireTime: current.record.acquireTime } : {}),
              leaseTransitions: current.record.leaseTransitions,
            }
          : { ...ours, leaseTransitions: current.record.leaseTransitions + 1 };
      await this.lock.update(next, timeoutMs);
      this.observe({ record: next, raw: JSON.stringify(next) }, this.now());
      return this.succeeded();
    } catch (error) {
      if (error instanceof LeaseConflict) return this.succeeded(false);
      if (error instanceof UserError && !(error instanceof ApiUnreachable) && !this.answered) throw error;
      // Unreachable, refused since, or an answer that is not a Lease (a proxy's page): said once, tried again.
      const message = error instanceof Error ? error.message : String(error);
      this.say(`leader election: ${message}; trying again every ${this.timings.retryPeriodMs / 1000} s`);
      return false;
    }
  }

  /** A try that the API server answered: problems said before are over. */
  private succeeded(result = true): boolean {
    this.answered = true;
    if (this.lastProblem) this.callbacks.problem?.(`leader election: the ${this.lock.describe} answers again`);
    this.lastProblem = "";
    return result;
  }

  private say(line: string): void {
    if (line === this.lastProblem) return;
    this.lastProblem = line;
    this.callbacks.problem?.(line);
  }

  /** client-go's release: the record kept, no holder, a lease of one second (a successor need not wait). */
  private async release(): Promise<void> {
    const now = microTime(this.now());
    const released: LeaseRecord = {
      holderIdentity: "",
      leaseDurationSeconds: 1,
      acquireTime: now,
      renewTime: now,
      leaseTransitions: this.observed?.leaseTransitions ?? 0,
    };
    try {
      await this.lock.update(released, this.timings.renewDeadlineMs);
    } catch (error) {
      this.say(
        `leader election: could not release the ${this.lock.describe} (${error instanceof Error ? error.message : String(error)}); a successor takes it when it expires`,
      );
    }
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}
