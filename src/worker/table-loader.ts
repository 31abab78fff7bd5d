/**
 * @module Loads the route table from KV into isolate memory. No request waits on a refresh: a request is
 * served from the table the isolate holds, and at most every TABLE_REFRESH_SECONDS one request starts a
 * refresh in the background (`waitUntil`). Only a cold isolate waits for a read, bounded by READ_LIMIT_MS
 * (and, with TABLE_REFRESH_SECONDS = 0, meant for tests, each request reads the pointer itself, bounded).
 * On any KV error, missing or corrupt blob, or unknown schema version it keeps serving the last good table
 * and logs why. A sharded table's root is read here; its shards are read by the served table when a
 * request first needs one. The active checks' unhealthy set is read with the pointer. While the pointer names a
 * canary, both versions are held prepared (a version the other already holds is not read again), and the canary's
 * record is read with the pointer: once it says the canary ended, or the TrafficStore told this isolate so
 * (`learn`), the isolate serves the version that won (canary.ts `effectivePointer`).
 */
import { prepareTable } from "../routing/prepared-table";
import { KV_KEYS, KV_READ } from "../table/kv-keys";
import { type CanaryEnd, type CanaryPointer, type CanaryRecord, effectivePointer } from "../table/canary";
import { parseCanaryRecord, parseHealthRecord, parseStoredTable, parseTablePointer } from "../table/parse-route-table";
import { isSharded, type TablePointer } from "../table/route-table";
import { READ_LIMIT_MS, SharedRead, TIMED_OUT, within } from "./bounded-read";
import type { Env } from "./env";
import type { HealthView } from "./health-view";
import { ShardedServedTable, type ServedTable, wholeTable } from "./served-table";

/** A canary being served: what the pointer says of it, and its version's table. */
export interface ActiveCanary {
  spec: CanaryPointer;
  served: ServedTable;
}

/** What an isolate serves: the current version, and the canary beside it while one is in progress. */
export interface Serving {
  current: ServedTable;
  canary: ActiveCanary | null;
}

/** How many ended canaries an isolate remembers having been told of (only the one in the pointer matters). */
const REMEMBERED_ENDS = 8;

interface LoaderState {
  serving: Serving | null;
  /** Canaries this isolate was told ended (by the TrafficStore or its own Cron analysis), by id. */
  ended: Map<string, CanaryEnd>;
  /** When the last refresh started (0: never). */
  checkedAt: number;
  /** The background refresh under way, by its start time; one older than READ_LIMIT_MS no longer counts. */
  refreshing: number | null;
  /** The read a cold isolate's requests share. */
  cold: SharedRead<void>;
}

export const tableName = (env: Env): string => env.KEDGE_TABLE || "kedge";

function refreshMs(env: Env): number {
  const seconds = Number(env.TABLE_REFRESH_SECONDS ?? "5");
  return Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : 5000;
}

/** The table of `version`: one this isolate holds already (either side of a canary), else read and prepared. */
async function tableOf(env: Env, name: string, version: string, held: Serving | null): Promise<ServedTable | string> {
  if (held?.current.version === version) return held.current;
  if (held?.canary?.served.version === version) return held.canary.served;
  const parsed = parseStoredTable(await env.ROUTES.get(KV_KEYS.blob(name, version), KV_READ.immutable));
  if (!parsed.ok) return parsed.reason;
  const stored = parsed.value;
  const served = isSharded(stored)
    ? new ShardedServedTable(
        stored,
        (shard) => env.ROUTES.get(KV_KEYS.shard(name, version, shard), KV_READ.immutable),
        held?.current ?? null,
      )
    : wholeTable(prepareTable(stored));
  const size = isSharded(stored) ? `${stored.shards.length} shards` : `${stored.rules.length} rules`;
  console.log(`kedge: loaded table ${name}@${version} (${size})`);
  return served;
}

/** The pointer as this isolate acts on it: a canary's end it knows of (told, or in the record) folded in. */
async function pointerInForce(env: Env, name: string, pointer: TablePointer, state: LoaderState): Promise<TablePointer> {
  const canary = pointer.canary;
  if (!canary) return pointer;
  const told = state.ended.get(canary.id);
  if (told) return effectivePointer(pointer, { canary, current: pointer.version, ended: told });
  let record: CanaryRecord | null = null;
  try {
    record = parseCanaryRecord(await env.ROUTES.get(KV_KEYS.canary(name, canary.id), KV_READ.changing));
  } catch (error) {
    console.warn(`kedge: reading canary ${canary.id} of ${name} failed; serving it as in progress`, error);
  }
  if (record?.ended) state.ended.set(canary.id, record.ended);
  return effectivePointer(pointer, record);
}

async function refresh(env: Env, state: LoaderState, health: HealthView): Promise<void> {
  const name = tableName(env);
  state.checkedAt = Date.now();
  const keeping = () => `keeping ${state.serving?.current.version ?? "no table"}`;
  try {
    const read = parseTablePointer(await env.ROUTES.get(KV_KEYS.current(name), KV_READ.changing));
    if (!read.ok) {
      console.warn(`kedge: table ${name}: pointer unusable (${read.reason}); ${keeping()}`);
      return;
    }
    const pointer = await pointerInForce(env, name, read.value, state);
    const held = state.serving;
    const current = await tableOf(env, name, pointer.version, held);
    if (typeof current === "string") {
      console.error(`kedge: table ${name}@${pointer.version} rejected: ${current}; ${keeping()}`);
      return;
    }
    let canary: ActiveCanary | null = null;
    if (pointer.canary) {
      const served = await tableOf(env, name, pointer.canary.version, held);
      // A canary whose table cannot be read gets no share: the current version serves everything.
      if (typeof served === "string") console.error(`kedge: canary ${name}@${pointer.canary.version} rejected: ${served}; not served`);
      else canary = { spec: pointer.canary, served };
    }
    if (current !== held?.current || canary?.spec.id !== held.canary?.spec.id || canary?.spec.percent !== held.canary?.spec.percent) {
      state.serving = { current, canary };
      if (current !== held?.current) console.log(`kedge: serving table ${name}@${current.version}`);
      if (canary && canary.spec.id !== held?.canary?.spec.id)
        console.log(`kedge: canary ${name}@${canary.spec.version} gets ${canary.spec.percent}% of new requests and sessions`);
    }
    await refreshHealth(env, state.serving?.current ?? null, health);
  } catch (error) {
    console.error(`kedge: reading table ${name} failed; ${keeping()}`, error);
  }
}

/** Reads the health store's unhealthy set; a missing or unreadable record keeps what was known. */
async function refreshHealth(env: Env, served: ServedTable | null, health: HealthView): Promise<void> {
  if (!served?.healthChecks) return;
  try {
    const record = parseHealthRecord(await env.ROUTES.get(KV_KEYS.health(served.name), KV_READ.changing));
    if (record) health.setActive(new Set(record.unhealthy));
  } catch (error) {
    console.warn(`kedge: reading health of ${served.name} failed; keeping the last known`, error);
  }
}

/**
 * The tables an isolate serves, one loader state per table name, and the health view the active checks'
 * record is read into.
 */
export class TableLoader {
  private readonly states = new Map<string, LoaderState>();

  constructor(private readonly health: HealthView) {}

  private stateOf(env: Env): LoaderState {
    const name = tableName(env);
    let state = this.states.get(name);
    if (!state) {
      state = { serving: null, ended: new Map(), checkedAt: 0, refreshing: null, cold: new SharedRead<void>(READ_LIMIT_MS) };
      this.states.set(name, state);
    }
    return state;
  }

  /** A cold isolate's read: shared with the requests that arrive meanwhile, each bounded. */
  private async readCold(env: Env, state: LoaderState): Promise<Serving | null> {
    const read = await state.cold.get(() => refresh(env, state, this.health));
    if (read === TIMED_OUT && !state.serving) console.warn(`kedge: table ${tableName(env)} not read within ${READ_LIMIT_MS} ms`);
    return state.serving;
  }

  /**
   * A canary's end this isolate was told of (its TrafficStore reply, or its own Cron analysis): applied at once
   * when it is the canary served, without waiting for the record to reach this location through KV.
   */
  learn(env: Env, id: string, end: CanaryEnd): void {
    const state = this.stateOf(env);
    state.ended.set(id, end);
    for (const old of state.ended.keys()) if (state.ended.size > REMEMBERED_ENDS) state.ended.delete(old);
    const serving = state.serving;
    if (!serving?.canary || serving.canary.spec.id !== id) return;
    const promoted = end.outcome === "promoted";
    state.serving = { current: promoted ? serving.canary.served : serving.current, canary: null };
    console.log(`kedge: canary ${id} ${end.outcome} (${end.by}): serving ${state.serving.current.version}`);
  }

  /**
   * The table to serve, or null when none was ever loaded (the caller answers 503). A served table is
   * returned as is, not wrapped in a promise: this runs on every request. When it is due, a refresh starts
   * in the background through `waitUntil`; its slot is cleared when it settles or after READ_LIMIT_MS.
   */
  load(env: Env, waitUntil: (promise: Promise<unknown>) => void): Serving | null | Promise<Serving | null> {
    const state = this.stateOf(env);
    const now = Date.now();
    const interval = refreshMs(env);
    if (!state.serving) {
      // Without any table, read again at most once a second (a KV outage is not read on every request),
      // but join a read under way rather than answer 503 while it runs.
      if (!state.cold.busy && state.checkedAt !== 0 && now - state.checkedAt < Math.min(interval, 1000)) return null;
      return this.readCold(env, state);
    }
    if (now - state.checkedAt < interval) return state.serving;
    // Re-read on every request: each request's own read, bounded; the last good table when it fails or hangs.
    if (interval === 0) return within(refresh(env, state, this.health), READ_LIMIT_MS).then(() => state.serving);
    if (state.refreshing !== null && now - state.refreshing < READ_LIMIT_MS) return state.serving;
    const started = now;
    state.refreshing = started;
    waitUntil(
      refresh(env, state, this.health).finally(() => {
        if (state.refreshing === started) state.refreshing = null;
      }),
    );
    return state.serving;
  }
}
