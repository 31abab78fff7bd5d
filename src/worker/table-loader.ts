/**
 * @module Loads the route table from KV into isolate memory. Re-reads the pointer at most every
 * TABLE_REFRESH_SECONDS; on any KV error, missing or corrupt blob, or unknown schema version it keeps
 * serving the last good table and logs why. A sharded table's root is read here; its shards are read
 * by the served table when a request first needs one.
 */
import { prepareTable } from "../routing/prepared-table";
import { KV_KEYS, KV_READ } from "../table/kv-keys";
import { parseHealthState, parseStoredTable, parseTablePointer } from "../table/parse-route-table";
import { isSharded } from "../table/route-table";
import type { Env } from "./env";
import { ShardedServedTable, type ServedTable, wholeTable } from "./served-table";

interface LoaderState {
  served: ServedTable | null;
  checkedAt: number;
  inflight: Promise<void> | null;
}

/** One state per table name, per isolate. */
const states = new Map<string, LoaderState>();

export const tableName = (env: Env): string => env.KEDGE_TABLE || "kedge";

function refreshMs(env: Env): number {
  const seconds = Number(env.TABLE_REFRESH_SECONDS ?? "5");
  return Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : 5000;
}

async function refresh(env: Env, state: LoaderState): Promise<void> {
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
    await refreshHealth(env, state.served);
  } catch (error) {
    console.error(`kedge: reading table ${name} failed; ${keeping()}`, error);
  }
}

/** Reads the Cron Trigger's health results; a missing or unreadable record keeps what was known. */
async function refreshHealth(env: Env, served: ServedTable | null): Promise<void> {
  if (!served?.healthChecks) return;
  try {
    const state = parseHealthState(await env.ROUTES.get(KV_KEYS.health(served.name), KV_READ.changing));
    if (state) served.setUnhealthy(new Set(Object.entries(state.endpoints).flatMap(([id, e]) => (e.healthy ? [] : [id]))));
  } catch (error) {
    console.warn(`kedge: reading health of ${served.name} failed; keeping the last known`, error);
  }
}

/**
 * The table to serve, or null when none was ever loaded (the caller answers 503). While the table is
 * fresh it is returned as is, not wrapped in a promise: this runs on every request.
 */
export function loadRouteTable(env: Env): ServedTable | null | Promise<ServedTable | null> {
  const name = tableName(env);
  let state = states.get(name);
  if (!state) {
    state = { served: null, checkedAt: 0, inflight: null };
    states.set(name, state);
  }
  // Without any table, look again sooner (but not on every request during a KV outage).
  const interval = state.served ? refreshMs(env) : Math.min(refreshMs(env), 1000);
  const current = state;
  if (current.checkedAt !== 0 && Date.now() - current.checkedAt < interval) {
    // Nothing served yet but the first read under way: wait for it rather than answer 503.
    if (!current.served && current.inflight) return current.inflight.then(() => current.served);
    return current.served;
  }
  current.inflight ??= refresh(env, current).finally(() => {
    current.inflight = null;
  });
  return current.inflight.then(() => current.served);
}
