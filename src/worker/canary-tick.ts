/**
 * @module The edge deciding a canary by itself, once per Cron run: the isolate's own counts are sent first, then
 * the table's TrafficStore compares both versions over the same minutes and decides (promote, revert, or wait:
 * canary.ts `analyseCanary`; the store decides each canary once). The figures and the verdict are written to the
 * canary's KV record (`table/<name>/canary/<id>`) for `kedge status`, `kedge history` and isolates elsewhere, and
 * logged as one JSON line (`{"kedge":"canary", ...}`). The pointer itself is never written here (canary.ts says why).
 */
import { type CanaryRecord, figuresText } from "../table/canary";
import { KV_KEYS, KV_READ } from "../table/kv-keys";
import { parseCanaryRecord } from "../table/parse-route-table";
import type { Env } from "./env";
import type { Isolate } from "./isolate";
import type { Serving } from "./table-loader";

/** One tick's analysis of the canary `serving` holds (null when none runs); the record as written. */
export async function runCanaryAnalysis(env: Env, serving: Serving, isolate: Isolate, now: number): Promise<CanaryRecord | null> {
  const canary = serving.canary;
  const traffic = env.TRAFFIC as Env["TRAFFIC"] | undefined;
  if (!canary || !traffic) return null;
  const { spec } = canary;
  const name = serving.current.name;
  const learn = (id: string, end: NonNullable<CanaryRecord["ended"]>) => isolate.tables.learn(env, id, end);
  // This isolate's counts first: the analysis then sees them too.
  await isolate.traffic.send(env, name, now, learn);
  const report = await traffic.get(traffic.idFromName(name)).analyse(spec, serving.current.version, now);
  const key = KV_KEYS.canary(name, spec.id);
  // A command (`kedge promote`, `kedge rollback`, a push) may have ended it first: its end is kept.
  const stored = parseCanaryRecord(await env.ROUTES.get(key, KV_READ.changing).catch(() => null));
  const ended = stored?.ended ?? report.ended;
  const record: CanaryRecord = {
    canary: spec,
    current: serving.current.version,
    figures: report.figures,
    verdict: report.verdict,
    analysedAt: new Date(now).toISOString(),
    ...(ended ? { ended } : {}),
  };
  console.log(
    JSON.stringify({
      kedge: "canary",
      table: name,
      canary: spec.id,
      version: spec.version,
      current: serving.current.version,
      percent: spec.percent,
      canaryFigures: figuresText(report.figures.canary),
      currentFigures: figuresText(report.figures.current),
      decision: report.verdict.decision,
      ...(ended ? { ended: ended.outcome, by: ended.by } : {}),
      reason: ended?.reason ?? report.verdict.reason,
    }),
  );
  if (!stored?.ended) await env.ROUTES.put(key, JSON.stringify(record));
  if (ended) learn(spec.id, ended);
  return record;
}
