/**
 * @module The config canary's contract, shared by the CLI and the Worker: what the pointer says of a canary
 * in progress (`TablePointer.canary`), the record of one canary that the Worker writes each Cron tick and the
 * CLI reads (`table/<name>/canary/<id>`), and how the two make the pointer a reader acts on (`effectivePointer`).
 * The Worker never rewrites the pointer: Workers KV has no compare-and-swap and a location may read a pointer
 * up to a minute old, so a Worker that rewrote it could undo a push made meanwhile. It writes the canary's own
 * record instead, keyed by the canary's id: a decision can only ever apply to the pointer that started that
 * canary, and the next write of the pointer by the CLI (a push, `promote`, `rollback`) folds it in.
 */
import type { TablePointer } from "./route-table";

/** The analysis settings a canary runs under (kedge.yaml `spec.rollout`, the pointer carries them). */
export interface CanaryAnalysis {
  /** Time the canary runs at least before it can be promoted, in ms; also the least the figures cover. */
  windowMs: number;
  /** Requests the canary must have answered before either decision. */
  minRequests: number;
  /** How far the canary's error rate may exceed the current version's (a fraction: 0.02 is 2 points). */
  maxErrorRateIncrease: number;
}

/** A canary in progress, as the pointer names it beside the current version. */
export interface CanaryPointer {
  /** Unique per canary push (a version may be canaried twice): `<version>-<start in base 36>`. */
  id: string;
  version: string;
  /** Share of new requests and new sessions, 1 to 99. */
  percent: number;
  startedAt: string;
  /** Who started it: `user@host pid N`, as a push names itself. */
  by: string;
  analysis: CanaryAnalysis;
}

/** Requests and errors (5xx answers, the gateway's own upstream failures included) of one version. */
export interface VersionFigures {
  version: string;
  requests: number;
  errors: number;
}

/** Both versions' figures over the same minutes, since the canary started. */
export interface CanaryFigures {
  canary: VersionFigures;
  current: VersionFigures;
  /** The minutes counted (minute granularity: the first one may hold a little traffic from before the start). */
  fromMinute: string;
  toMinute: string;
}

export type CanaryOutcome = "promoted" | "reverted" | "superseded";

/** What the analysis says on one tick. */
export interface CanaryVerdict {
  decision: "promote" | "revert" | "wait";
  /** One line: the figures compared and why. */
  reason: string;
}

/** How a canary ended: by the edge's analysis, by a command, or by a push that replaced it. */
export interface CanaryEnd {
  outcome: CanaryOutcome;
  at: string;
  /** `the edge` (its Cron analysis), or `kedge promote|rollback|sync (user@host pid N)`. */
  by: string;
  reason: string;
}

/** What `table/<name>/canary/<id>` holds: the canary, its latest figures and verdict, and how it ended. */
export interface CanaryRecord {
  canary: CanaryPointer;
  /** The version it was compared with (the pointer's current version). */
  current: string;
  /** The latest analysis (absent until the first Cron tick). */
  figures?: CanaryFigures;
  verdict?: CanaryVerdict;
  analysedAt?: string;
  /** Set once it ended; never changed after (the first end written wins for every reader). */
  ended?: CanaryEnd;
}

/** Who the edge's own decisions are by, in records and pointers. */
export const EDGE_ANALYSIS = "the edge (canary analysis)";

/**
 * Defaults of `spec.rollout`, chosen so that one noisy minute cannot decide: 10 % of new traffic bounds what a
 * bad canary costs; 5 minutes is five Cron ticks (Cloudflare's least interval is one minute), long enough for
 * slow failures (a pool exhausted, a cache cold) to show; at 100 requests a 2-point increase is about four
 * standard deviations above the binomial noise of a healthy 1 % error rate, so a healthy canary is not reverted
 * by chance, while a broken one (most requests failing) is reverted at the first tick that has 100 requests.
 */
export const CANARY_DEFAULTS = { percent: 10, window: "5m", minRequests: 100, maxErrorRateIncrease: 0.02 } as const;

/**
 * The z-score the increase must also reach (one-sided, two-proportion test): about 99.9 %. The analysis
 * looks again every tick at figures that grow, so each look is held to a stricter bound than a single test.
 */
export const MIN_Z = 3;

/** A canary's id: its version and when it started, so one version canaried twice has two records. */
export const canaryId = (version: string, startedAt: Date): string => `${version}-${startedAt.getTime().toString(36)}`;

const rate = (f: VersionFigures): number => (f.requests > 0 ? f.errors / f.requests : 0);
const pct = (x: number): string => `${(x * 100).toFixed(1)}%`;
/** A difference of two rates, in percentage points: 0.02 is "2.0". */
const points = (x: number): string => (x * 100).toFixed(1);

/** `12 of 140 (8.6%)` */
export const figuresText = (f: VersionFigures): string => `${f.errors} of ${f.requests} (${pct(rate(f))})`;

/** How far above the current version's error rate the canary's is, in standard errors (0 when either has no requests). */
export function increaseZ(figures: CanaryFigures): number {
  const { canary, current } = figures;
  if (canary.requests === 0 || current.requests === 0) return 0;
  const pooled = (canary.errors + current.errors) / (canary.requests + current.requests);
  const se = Math.sqrt(pooled * (1 - pooled) * (1 / canary.requests + 1 / current.requests));
  const diff = rate(canary) - rate(current);
  if (se === 0) return diff > 0 ? Number.POSITIVE_INFINITY : 0;
  return diff / se;
}

/**
 * One tick's verdict: revert when the canary, with at least `minRequests` answered, fails more than the current
 * version by over `maxErrorRateIncrease` and the increase is significant (MIN_Z); promote when it has run
 * `windowMs` with at least `minRequests` and is not worse by that much; otherwise wait, saying for what.
 */
export function analyseCanary(analysis: CanaryAnalysis, figures: CanaryFigures, elapsedMs: number): CanaryVerdict {
  const { canary, current } = figures;
  const compared = `canary ${canary.version.slice(0, 12)} ${figuresText(canary)} vs current ${current.version.slice(0, 12)} ${figuresText(current)}`;
  if (canary.requests < analysis.minRequests)
    return { decision: "wait", reason: `${compared}: waiting for ${analysis.minRequests - canary.requests} more canary requests` };
  const increase = rate(canary) - rate(current);
  const z = increaseZ(figures);
  const allowed = `${points(analysis.maxErrorRateIncrease)} points`;
  if (increase > analysis.maxErrorRateIncrease && z >= MIN_Z)
    return {
      decision: "revert",
      reason: `${compared}: error rate ${points(increase)} points higher (allowed ${allowed}, z ${z.toFixed(1)})`,
    };
  if (elapsedMs < analysis.windowMs)
    return {
      decision: "wait",
      reason: `${compared}: within ${allowed}; ${Math.ceil((analysis.windowMs - elapsedMs) / 1000)} s of the analysis window left`,
    };
  return { decision: "promote", reason: `${compared}: within ${allowed} over the whole window` };
}

/**
 * The pointer as every reader acts on it: a canary whose record says it ended is folded in (promoted: its
 * version is the current one; reverted: dropped, the pointer marked as rolled back from it, so `sync --watch`
 * does not push it again until the config changes). A record of another canary changes nothing.
 */
export function effectivePointer(pointer: TablePointer, record: CanaryRecord | null): TablePointer {
  const canary = pointer.canary;
  if (!canary || !record?.ended || record.canary.id !== canary.id) return pointer;
  const { canary: _ended, rolledBack: _mark, ...rest } = pointer;
  const { outcome, at, by } = record.ended;
  if (outcome === "promoted") return { ...rest, version: canary.version, updatedAt: at };
  // Reverted (or superseded: no push replaces a canary without writing a new pointer, so only a stale read sees it).
  return { ...rest, updatedAt: at, rolledBack: { from: canary.version, at, by } };
}
