/**
 * @module Loads the route table from KV into isolate memory. No request waits on a refresh: a request is
 * served from the table the isolate holds, and at most every TABLE_REFRESH_SECONDS one request starts a
 * refresh in the background (`waitUntil`). Only a cold isolate waits for a read, bounded by READ_LIMIT_MS
 * (and, with TABLE_REFRESH_SECONDS = 0, meant for tests, each request reads the pointer itself, bounded).
 * On any KV error, missing or corrupt blob, or unknown schema version it keeps serving the last good table
 * and logs why. A sharded table's root is read here; its shards are read by the served table when a
 * request first needs one. The active checks' unhealthy set is read with the pointer.
 */
import { prepareTable } from "../routing/prepared-table";
import { KV_KEYS, KV_READ } from "../table/kv-keys";
import { parseHealthRecord, parseStoredTable, parseTablePointer } from "../table/parse-route-table";
import { isSharded } from "../table/route-table";
import { READ_LIMIT_MS, SharedRead, TIMED_OUT, within } from "./bounded-read";
import type { Env } from "./env";
import type { HealthView } from "./health-view";
import { ShardedServedTable, type ServedTable, wholeTable } from "./served-table";

interface LoaderState {
  served: ServedTable | null;
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

async function refresh(env: Env, state: LoaderState, health: HealthView): Promise<void> {
  const name = tableName(env);
  state.checkedAt = Date.now();
  const keeping = () => `keeping ${state.served?.version ?? "no table"}`;
  try {
    const pointer = parseTablePointer(await env.ROUTES.get(KV_KEYS.current(name), KV_READ.changing));
    if (!pointer.ok) {
      console.warn(`kedge: table ${name}: pointer unusable (${pointer.reason}); ${keeping()}`);
      return;
    }
    const { version } = pointer.value;
    if (version !== state.served?.version) {
      const parsed = parseStoredTable(await env.ROUTES.get(KV_KEYS.blob(name, version), KV_READ.immutable));
      if (!parsed.ok) {
        console.error(`kedge: table ${name}@${version} rejected: ${parsed.reason}; ${keeping()}`);
        return;
      }
      const stored = parsed.value;
      state.served = isSharded(stored)
        ? new ShardedServedTable(stored, (shard) => env.ROUTES.get(KV_KEYS.shard(name, version, shard), KV_READ.immutable), state.served)
        : wholeTable(prepareTable(stored));
      const size = isSharded(stored) ? `${stored.shards.length} shards` : `${stored.rules.length} rules`;
      console.log(`kedge: serving table ${name}@${version} (${size})`);
    }
    await refreshHealth(env, state.served, health);
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
      state = { served: null, checkedAt: 0, refreshing: null, cold: new SharedRead<void>(READ_LIMIT_MS) };
      this.states.set(name, state);
    }
    return state;
  }

  /** A cold isolate's read: shared with the requests that arrive meanwhile, each bounded. */
  private async readCold(env: Env, state: LoaderState): Promise<ServedTable | null> {
    const read = await state.cold.get(() => refresh(env, state, this.health));
    if (read === TIMED_OUT && !state.served) console.warn(`kedge: table ${tableName(env)} not read within ${READ_LIMIT_MS} ms`);
    return state.served;
  }

  /**
   * The table to serve, or null when none was ever loaded (the caller answers 503). A served table is
   * returned as is, not wrapped in a promise: this runs on every request. When it is due, a refresh starts
   * in the background through `waitUntil`; its slot is cleared when it settles or after READ_LIMIT_MS.
   */
  load(env: Env, waitUntil: (promise: Promise<unknown>) => void): ServedTable | null | Promise<ServedTable | null> {
    const state = this.stateOf(env);
    const now = Date.now();
    const interval = refreshMs(env);
    if (!state.served) {
      // Without any table, read again at most once a second (a KV outage is not read on every request),
      // but join a read under way rather than answer 503 while it runs.
      if (!state.cold.busy && state.checkedAt !== 0 && now - state.checkedAt < Math.min(interval, 1000)) return null;
      return this.readCold(env, state);
    }
    if (now - state.checkedAt < interval) return state.served;
    // Re-read on every request: each request's own read, bounded; the last good table when it fails or hangs.
    if (interval === 0) return within(refresh(env, state, this.health), READ_LIMIT_MS).then(() => state.served);
    if (state.refreshing !== null && now - state.refreshing < READ_LIMIT_MS) return state.served;
    const started = now;
    state.refreshing = started;
    waitUntil(
      refresh(env, state, this.health).finally(() => {
        if (state.refreshing === started) state.refreshing = null;
      }),
    );
    return state.served;
  }
}
