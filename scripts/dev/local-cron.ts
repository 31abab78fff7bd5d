/**
 * @module The Worker's Cron Triggers, run locally as deployed: `kedge dev` and `npm start` read the wrangler
 * config's `[triggers] crons` and fire the Worker's `scheduled` handler through Miniflare at the times each
 * expression names (Miniflare and `wrangler dev` never fire them by themselves), so the active health checks and
 * a canary's analysis run locally too. Expressions are the five fields Cloudflare takes, in UTC: minute, hour,
 * day of month, month, day of week; each a `*`, a number, a name (JAN-DEC, SUN-SAT), a range `a-b`, a step
 * `*\/n` or `a-b/n`, or a list of those. Cloudflare's Quartz extras (`L`, `W`, `#`) are refused with a line.
 */

/** One field's allowed values, and whether it was `*` (day-of-month and day-of-week combine by it). */
interface Field {
  values: Set<number>;
  any: boolean;
}

export interface CronSchedule {
  expression: string;
  minute: Field;
  hour: Field;
  dayOfMonth: Field;
  month: Field;
  dayOfWeek: Field;
}

const MONTHS = ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"];
const DAYS = ["SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"];

/** The ranges of the five fields, and the names each takes. */
const FIELDS = [
  { name: "minute", min: 0, max: 59 },
  { name: "hour", min: 0, max: 23 },
  { name: "day of month", min: 1, max: 31 },
  { name: "month", min: 1, max: 12, names: MONTHS, offset: 1 },
  // 7 is Sunday too, as cron and Cloudflare take it.
  { name: "day of week", min: 0, max: 7, names: DAYS, offset: 0 },
] as const;

export class CronSyntaxError extends Error {
  override name = "CronSyntaxError";
}

function parseValue(text: string, spec: (typeof FIELDS)[number], expression: string): number {
  const named = "names" in spec ? spec.names.indexOf(text.toUpperCase() as never) : -1;
  const value = named >= 0 ? named + ("offset" in spec ? spec.offset : 0) : /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!(value >= spec.min && value <= spec.max))
    throw new CronSyntaxError(`cron "${expression}": ${JSON.stringify(text)} is not a ${spec.name} (${spec.min}-${spec.max})`);
  return value;
}

function parseField(text: string, spec: (typeof FIELDS)[number], expression: string): Field {
  const values = new Set<number>();
  for (const part of text.split(",")) {
    const [range, stepText] = part.split("/") as [string, string | undefined];
    const step = stepText === undefined ? 1 : Number(stepText);
    if (!Number.isInteger(step) || step < 1)
      throw new CronSyntaxError(`cron "${expression}": ${JSON.stringify(part)} has a step that is not a whole number above 0`);
    let from: number = spec.min;
    let to: number = spec.max;
    if (range !== "*") {
      const [a, b] = range.split("-") as [string, string | undefined];
      from = parseValue(a, spec, expression);
      to = b === undefined ? (stepText === undefined ? from : spec.max) : parseValue(b, spec, expression);
      if (to < from) throw new CronSyntaxError(`cron "${expression}": range ${JSON.stringify(range)} runs backwards`);
    }
    for (let v = from; v <= to; v += step) values.add(spec.name === "day of week" && v === 7 ? 0 : v);
  }
  return { values, any: text === "*" };
}

/** A five-field cron expression, or a CronSyntaxError saying what is wrong with it. */
export function parseCron(expression: string): CronSchedule {
  const parts = expression.trim().split(/\s+/);
  if (parts.length !== 5)
    throw new CronSyntaxError(`cron "${expression}": needs five fields (minute hour day-of-month month day-of-week), has ${parts.length}`);
  if (
    parts.some((p) =>
      /[LW#?]/i.test(
        p.replace(/[A-Z]{3}/gi, (name) => (MONTHS.includes(name.toUpperCase()) || DAYS.includes(name.toUpperCase()) ? "0" : name)),
      ),
    )
  )
    throw new CronSyntaxError(`cron "${expression}": L, W, # and ? are not run locally (use *, numbers, names, ranges, steps and lists)`);
  const [minute, hour, dayOfMonth, month, dayOfWeek] = parts.map((p, i) => parseField(p, FIELDS[i]!, expression)) as [
    Field,
    Field,
    Field,
    Field,
    Field,
  ];
  return { expression, minute, hour, dayOfMonth, month, dayOfWeek };
}

/** Whether the schedule fires in the minute that starts at `at` (UTC, as Cloudflare runs Cron Triggers). */
export function matches(schedule: CronSchedule, at: Date): boolean {
  if (!schedule.minute.values.has(at.getUTCMinutes()) || !schedule.hour.values.has(at.getUTCHours())) return false;
  if (!schedule.month.values.has(at.getUTCMonth() + 1)) return false;
  const dom = schedule.dayOfMonth.values.has(at.getUTCDate());
  const dow = schedule.dayOfWeek.values.has(at.getUTCDay());
  // As cron: when both day fields are restricted, either one matching will do.
  if (!schedule.dayOfMonth.any && !schedule.dayOfWeek.any) return dom || dow;
  return dom && dow;
}

/** The first minute after `after` (ms) in which the schedule fires, in ms; null when none within about four years. */
export function nextFire(schedule: CronSchedule, after: number): number | null {
  let t = Math.floor(after / 60_000) * 60_000 + 60_000;
  const limit = t + 4 * 366 * 86_400_000;
  while (t < limit) {
    const at = new Date(t);
    if (matches(schedule, at)) return t;
    // A day that cannot match is skipped whole.
    const dayOk = schedule.month.values.has(at.getUTCMonth() + 1) && matches({ ...schedule, minute: anyField(60), hour: anyField(24) }, at);
    t = dayOk ? t + 60_000 : Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate() + 1);
  }
  return null;
}

const anyField = (size: number): Field => ({ values: new Set(Array.from({ length: size }, (_, i) => i)), any: true });

/** Fires one scheduled event: the cron expression and the time it was scheduled for. */
export type FireScheduled = (cron: string, scheduledTime: number) => Promise<void>;

export interface LocalCronOptions {
  /** The clock (tests move it ahead to reach a minute boundary sooner). */
  now?: () => number;
  /** Told of a run that failed (the Worker's own errors are in its log). */
  onError?: (cron: string, error: unknown) => void;
}

/**
 * Fires `fire` for each schedule at its times until `stop()`. `tick()` fires every schedule now, the way a test
 * drives the same path without waiting for the clock. A run still going when the next is due is not overlapped.
 */
export class LocalCron {
  readonly schedules: CronSchedule[];
  private timer?: NodeJS.Timeout;
  private stopped = false;
  private running: Promise<void> = Promise.resolve();
  private readonly now: () => number;

  constructor(
    expressions: string[],
    private readonly fire: FireScheduled,
    private readonly options: LocalCronOptions = {},
  ) {
    this.schedules = expressions.map(parseCron);
    this.now = options.now ?? Date.now;
  }

  /** Starts firing on the schedules' times. */
  start(): this {
    this.arm();
    return this;
  }

  private arm(): void {
    if (this.stopped || this.schedules.length === 0) return;
    const now = this.now();
    const next = Math.min(...this.schedules.map((s) => nextFire(s, now) ?? Number.POSITIVE_INFINITY));
    if (!Number.isFinite(next)) return;
    // setTimeout holds at most about 24.8 days; a later time is reached in steps.
    const wait = Math.min(next - now, 2 ** 31 - 1);
    this.timer = setTimeout(() => {
      if (this.now() >= next) this.running = this.running.then(() => this.fireDue(next));
      this.arm();
    }, wait);
    this.timer.unref?.();
  }

  private async fireDue(at: number): Promise<void> {
    for (const s of this.schedules) if (matches(s, new Date(at))) await this.run(s.expression, at);
  }

  private async run(cron: string, at: number): Promise<void> {
    try {
      await this.fire(cron, at);
    } catch (error) {
      this.options.onError?.(cron, error);
    }
  }

  /** Fires every schedule now, once each, and waits for the runs. */
  async tick(): Promise<void> {
    const at = this.now();
    const runs = this.running.then(async () => {
      for (const s of this.schedules) await this.run(s.expression, at);
    });
    this.running = runs;
    await runs;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }
}
