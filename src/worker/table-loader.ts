/**
 * @module Loads the route table from KV into isolate memory. Re-reads the pointer at most every
 * TABLE_REFRESH_SECONDS; on any KV error, missing or corrupt blob, or unknown schema version it keeps
 * serving the last good table and logs why.
 */
import { prepareTable, type PreparedTable } from "../routing/prepared-table";
import { KV_KEYS } from "../table/kv-keys";
import { parseHealthState, parseRouteTable, parseTablePointer } from "../table/parse-route-table";
import type { Env } from "./env";

interface LoaderState {
  prepared: PreparedTable | null;
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
  try {
    const pointer = parseTablePointer(await env.ROUTES.get(KV_KEYS.current(name), "json"));
    if (!pointer.ok) {
      console.warn(`kedge: table ${name}: pointer unusable (${pointer.reason}); keeping ${state.prepared?.table.version ?? "no table"}`);
      return;
    }
    if (pointer.value.version === state.prepared?.table.version) {
      await refreshHealth(env, state.prepared);
      return;
    }
    const parsed = parseRouteTable(await env.ROUTES.get(KV_KEYS.blob(name, pointer.value.version), "json"));
    if (!parsed.ok) {
      console.error(
        `kedge: table ${name}@${pointer.value.version} rejected: ${parsed.reason}; keeping ${state.prepared?.table.version ?? "no table"}`,
      );
      return;
    }
    state.prepared = prepareTable(parsed.value);
    await refreshHealth(env, state.prepared);
    console.log(`kedge: serving table ${name}@${parsed.value.version} (${parsed.value.rules.length} rules)`);
  } catch (error) {
    console.error(`kedge: reading table ${name} failed; keeping ${state.prepared?.table.version ?? "no table"}`, error);
  }
}

/** Reads the Cron Trigger's health results; a missing or unreadable record keeps what was known. */
async function refreshHealth(env: Env, prepared: PreparedTable): Promise<void> {
  if (!prepared.table.healthChecks) return;
  try {
    const state = parseHealthState(await env.ROUTES.get(KV_KEYS.health(prepared.table.name), "json"));
    if (state) prepared.unhealthy = new Set(Object.entries(state.endpoints).flatMap(([id, e]) => (e.healthy ? [] : [id])));
  } catch (error) {
    console.warn(`kedge: reading health of ${prepared.table.name} failed; keeping the last known`, error);
  }
}

/** The table to serve, or null when none was ever loaded (the caller answers 503). */
export async function loadRouteTable(env: Env): Promise<PreparedTable | null> {
  const name = tableName(env);
  let state = states.get(name);
  if (!state) {
    state = { prepared: null, checkedAt: 0, inflight: null };
    states.set(name, state);
  }
  // Without any table, look again sooner (but not on every request during a KV outage).
  const interval = state.prepared ? refreshMs(env) : Math.min(refreshMs(env), 1000);
  if (state.checkedAt !== 0 && Date.now() - state.checkedAt < interval) return state.prepared;
  const current = state;
  current.inflight ??= refresh(env, current).finally(() => {
    current.inflight = null;
  });
  await current.inflight;
  return current.prepared;
}
