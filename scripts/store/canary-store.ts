/**
 * @module A canary as the CLI keeps it in KV: its record (`table/<name>/canary/<id>`, which the Worker's Cron
 * analysis writes each tick), the pointer as every command acts on it (a canary the record says ended folded in:
 * canary.ts `effectivePointer`), and a canary ended by a command (`kedge promote`, `kedge rollback`, a push that
 * replaces it), whose end is written to its record so that `kedge history` and `kedge status` say it.
 */
import {
  type CanaryAnalysis,
  type CanaryEnd,
  type CanaryPointer,
  type CanaryRecord,
  CANARY_DEFAULTS,
  canaryId,
  effectivePointer,
} from "../../src/table/canary";
import type { RolloutSettings } from "../../src/compile/input/edge-config";
import { parseDuration } from "../../src/gateway-api/duration";
import { KV_KEYS } from "../../src/table/kv-keys";
import { parseCanaryRecord } from "../../src/table/parse-route-table";
import type { TablePointer } from "../../src/table/route-table";
import type { KvStore } from "./kv-store";
import { pushHolder } from "./push-lease";

/** What `sync --canary` asks for: the share, and the analysis settings (kedge.yaml `spec.rollout`). */
export interface CanarySettings {
  percent: number;
  analysis: CanaryAnalysis;
}

/** What `--canary` asks for, with kedge.yaml's spec.rollout for what the flag leaves out; undefined without the flag. */
export function canarySettings(flag: number | true | undefined, rollout: RolloutSettings | undefined): CanarySettings | undefined {
  if (flag === undefined) return undefined;
  const { percent, ...analysis } = rollout ?? {
    percent: CANARY_DEFAULTS.percent,
    windowMs: parseDuration(CANARY_DEFAULTS.window)!,
    minRequests: CANARY_DEFAULTS.minRequests,
    maxErrorRateIncrease: CANARY_DEFAULTS.maxErrorRateIncrease,
  };
  return { percent: flag === true ? percent : flag, analysis };
}

/** The pointer as read, with the canary it names (if any) and that canary's record. */
export interface PointerRead {
  /** The pointer in force: a canary whose record says it ended is folded in. */
  pointer: TablePointer;
  /** The canary still in progress, and its record (absent before the first Cron analysis). */
  running?: { canary: CanaryPointer; record: CanaryRecord | null };
  /** The canary the stored pointer names, when its record says it ended (the next write of the pointer folds it in). */
  ended?: CanaryRecord;
}

function parseJson(text: string | null): unknown {
  try {
    return text === null ? null : JSON.parse(text);
  } catch {
    return undefined;
  }
}

export async function readCanaryRecord(kv: KvStore, name: string, id: string): Promise<CanaryRecord | null> {
  return parseCanaryRecord(parseJson(await kv.get(KV_KEYS.canary(name, id))));
}

/** The stored pointer resolved against its canary's record (one more read, only while the pointer names a canary). */
export async function resolvePointer(kv: KvStore, name: string, stored: TablePointer): Promise<PointerRead> {
  const canary = stored.canary;
  if (!canary) return { pointer: stored };
  const record = await readCanaryRecord(kv, name, canary.id);
  const pointer = effectivePointer(stored, record);
  if (record?.ended && record.canary.id === canary.id) return { pointer, ended: record };
  return { pointer, running: { canary, record: record?.canary.id === canary.id ? record : null } };
}

/** The pointer's `canary` for a new canary of `version` started now. */
export function newCanary(version: string, settings: CanarySettings, now: Date): CanaryPointer {
  return {
    id: canaryId(version, now),
    version,
    percent: settings.percent,
    startedAt: now.toISOString(),
    by: pushHolder(),
    analysis: settings.analysis,
  };
}

/**
 * Writes how a canary ended into its record, unless the record says it ended already (the first end stands:
 * the Worker's analysis may have decided it a moment before). Returns the end that stands.
 */
export async function endCanary(
  kv: KvStore,
  name: string,
  running: { canary: CanaryPointer; record: CanaryRecord | null },
  current: string,
  end: Omit<CanaryEnd, "by"> & { by: string },
): Promise<CanaryEnd> {
  const again = await readCanaryRecord(kv, name, running.canary.id);
  if (again?.ended) return again.ended;
  const record: CanaryRecord = { ...(again ?? running.record ?? { canary: running.canary, current }), ended: end };
  await kv.put(KV_KEYS.canary(name, running.canary.id), JSON.stringify(record));
  return end;
}

/** `kedge promote (user@host pid N)`: who ended a canary by hand. */
export const byCommand = (command: string): string => `kedge ${command} (${pushHolder()})`;

/** The records of the canaries `ids` names (null for one that is missing or unreadable), in one bulk read. */
export async function readCanaryRecords(kv: KvStore, name: string, ids: string[]): Promise<Map<string, CanaryRecord | null>> {
  const texts = ids.length > 0 ? await kv.getMany(ids.map((id) => KV_KEYS.canary(name, id))) : [];
  return new Map(ids.map((id, i) => [id, parseCanaryRecord(parseJson(texts[i] ?? null))]));
}

/** One line saying where a canary stands: how it ended, or its last analysis. */
export function canaryLine(percent: number, record: CanaryRecord | null): string {
  if (record?.ended)
    return `canary ${percent}%: ${record.ended.outcome} by ${record.ended.by} at ${record.ended.at}: ${record.ended.reason}`;
  if (record?.verdict)
    return `canary ${percent}%: in progress; last analysis ${record.analysedAt ?? ""}: ${record.verdict.decision}: ${record.verdict.reason}`;
  return `canary ${percent}%: in progress; no Cron analysis yet`;
}
