/**
 * The local Cron: the five-field expressions wrangler takes, matched in UTC as Cloudflare runs them (names, ranges,
 * steps, lists, day-of-month OR day-of-week), refused with a reason when they cannot be run, and the scheduler that
 * fires each at its minute (on a clock the test moves) or at once with `tick()`.
 */
import { describe, it } from "vitest";
import { CronSyntaxError, LocalCron, matches, nextFire, parseCron } from "../../scripts/dev/local-cron";

const at = (iso: string) => new Date(iso);

describe("cron expressions", () => {
  it("matches every minute, steps, ranges, lists and names, in UTC", ({ expect }) => {
    expect(matches(parseCron("* * * * *"), at("2026-11-28T10:17:00Z"))).toBe(true);
    const quarter = parseCron("*/15 * * * *");
    expect([0, 15, 30, 45].map((m) => matches(quarter, at(`2026-11-28T10:${String(m).padStart(2, "0")}:00Z`)))).toEqual([
      true,
      true,
      true,
      true,
    ]);
    expect(matches(quarter, at("2026-11-28T10:16:00Z"))).toBe(false);
    const office = parseCron("0 9-17/4 * * MON-FRI");
    expect(matches(office, at("2026-11-27T13:00:00Z"))).toBe(true); // a Friday
    expect(matches(office, at("2026-11-28T13:00:00Z"))).toBe(false); // a Saturday
    expect(matches(office, at("2026-11-27T11:00:00Z"))).toBe(false);
    expect(matches(parseCron("30 2 1,15 JAN,jul *"), at("2026-07-15T02:30:00Z"))).toBe(true);
    expect(matches(parseCron("0 0 * * 7"), at("2026-11-29T00:00:00Z"))).toBe(true); // 7 is Sunday too
  });

  it("takes either day field when both are restricted, as cron does", ({ expect }) => {
    const either = parseCron("0 0 13 * FRI");
    expect(matches(either, at("2026-11-13T00:00:00Z"))).toBe(true); // the 13th, a Friday
    expect(matches(either, at("2026-11-20T00:00:00Z"))).toBe(true); // a Friday
    expect(matches(either, at("2026-12-13T00:00:00Z"))).toBe(true); // the 13th, a Sunday
    expect(matches(either, at("2026-12-14T00:00:00Z"))).toBe(false);
  });

  it("finds the next minute it fires, skipping days that cannot match", ({ expect }) => {
    expect(nextFire(parseCron("* * * * *"), Date.parse("2026-11-28T10:17:30Z"))).toBe(Date.parse("2026-11-28T10:18:00Z"));
    expect(nextFire(parseCron("0 3 1 * *"), Date.parse("2026-11-28T10:17:30Z"))).toBe(Date.parse("2026-12-01T03:00:00Z"));
    expect(nextFire(parseCron("0 0 29 2 *"), Date.parse("2026-11-28T00:00:00Z"))).toBe(Date.parse("2028-02-29T00:00:00Z"));
  });

  it("refuses what it cannot run, saying why", ({ expect }) => {
    expect(() => parseCron("* * * *")).toThrow(/needs five fields .* has 4/);
    expect(() => parseCron("61 * * * *")).toThrow(/"61" is not a minute \(0-59\)/);
    expect(() => parseCron("0 0 L * *")).toThrow(/L, W, # and \? are not run locally/);
    expect(() => parseCron("*/0 * * * *")).toThrow(CronSyntaxError);
    expect(() => parseCron("0 5-1 * * *")).toThrow(/runs backwards/);
  });
});

describe("the local Cron scheduler", () => {
  it("fires each schedule at its minute with that minute as the scheduled time, and tick() fires them at once", async ({ expect }) => {
    const fired: { cron: string; at: number }[] = [];
    // The clock 200 ms before a minute's end.
    const boundary = Math.ceil(Date.now() / 60_000) * 60_000 + 60_000;
    const offset = boundary - 200 - Date.now();
    const cron = new LocalCron(["* * * * *", "0 0 1 1 *"], async (c, t) => void fired.push({ cron: c, at: t }), {
      now: () => Date.now() + offset,
    }).start();
    const deadline = Date.now() + 5000;
    while (fired.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(fired).toEqual([{ cron: "* * * * *", at: boundary }]);
    await cron.tick();
    expect(fired.slice(1).map((f) => f.cron)).toEqual(["* * * * *", "0 0 1 1 *"]);
    await cron.stop();
  });

  it("tells a run that failed and keeps going", async ({ expect }) => {
    const errors: string[] = [];
    const cron = new LocalCron(["* * * * *"], async () => Promise.reject(new Error("boom")), {
      onError: (c, e) => errors.push(`${c}: ${(e as Error).message}`),
    });
    await cron.tick();
    await cron.tick();
    expect(errors).toEqual(["* * * * *: boom", "* * * * *: boom"]);
    await cron.stop();
  });
});
