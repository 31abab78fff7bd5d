/**
 * @module Parses a RouteTable read from KV. The Worker trusts nothing it reads: a blob of another
 * schema version or a malformed one is rejected with a reason, and the caller keeps the last good table.
 */
import {
  type HealthRecord,
  SCHEMA_VERSION,
  type RouteTable,
  type ShardedTable,
  type StoredTable,
  type TableHistoryEntry,
  type TablePointer,
} from "./route-table";

export type ParseResult<T> = { ok: true; value: T } | { ok: false; reason: string };

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);
const isString = (v: unknown): v is string => typeof v === "string";
const isNumber = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v);
const isIndexList = (v: unknown): v is number[] => Array.isArray(v) && v.every(isNumber);

function checkHostIndex(v: unknown, matchCount: number): string | null {
  if (!isObject(v) || !isObject(v.exact) || !isObject(v.wildcard) || !isIndexList(v.any)) {
    return "host index must have exact, wildcard and any";
  }
  const lists = [v.any, ...Object.values(v.exact), ...Object.values(v.wildcard)];
  for (const list of lists) {
    if (!isIndexList(list) || list.some((i) => i < 0 || i >= matchCount)) {
      return "host index names a match that does not exist";
    }
  }
  return null;
}

/** Checks the structure the Worker relies on; field-level semantics were validated at compile time. */
export function parseRouteTable(raw: unknown): ParseResult<RouteTable> {
  if (!isObject(raw)) return { ok: false, reason: "table is not a JSON object" };
  if (raw.schemaVersion !== SCHEMA_VERSION) {
    return {
      ok: false,
      reason: `table has schemaVersion ${String(raw.schemaVersion)}, this Worker reads ${SCHEMA_VERSION}`,
    };
  }
  if (!isString(raw.version) || !isString(raw.name)) return { ok: false, reason: "table lacks version or name" };
  const { matches, rules, backends, hosts, listeners } = raw;
  if (!Array.isArray(matches) || !Array.isArray(rules) || !isObject(backends) || !isObject(hosts) || !Array.isArray(listeners)) {
    return { ok: false, reason: "table lacks matches, rules, backends, hosts or listeners" };
  }
  for (const [i, m] of matches.entries()) {
    if (!isObject(m) || !isString(m.id) || !isNumber(m.rule) || m.rule < 0 || m.rule >= rules.length) {
      return { ok: false, reason: `match ${i} is malformed or names a missing rule` };
    }
    if (!isObject(m.path) || !isString(m.path.type) || !isString(m.path.value)) {
      return { ok: false, reason: `match ${m.id} has no path` };
    }
    if (!Array.isArray(m.headers) || !Array.isArray(m.queryParams)) {
      return { ok: false, reason: `match ${m.id} lacks headers or queryParams` };
    }
  }
  for (const [i, r] of rules.entries()) {
    if (
      !isObject(r) ||
      !isString(r.id) ||
      !Array.isArray(r.backendRefs) ||
      !Array.isArray(r.filters) ||
      (r.invalid !== undefined && !isString(r.invalid)) ||
      (r.clientCertificate !== undefined && r.clientCertificate !== "required")
    ) {
      return { ok: false, reason: `rule ${i} is malformed` };
    }
    const session = r.session;
    if (
      session !== undefined &&
      !(isObject(session) && isString(session.scope) && isString(session.name) && (session.type === "Cookie" || session.type === "Header"))
    ) {
      return { ok: false, reason: `rule ${r.id} has a malformed session` };
    }
    for (const ref of r.backendRefs) {
      if (!isObject(ref) || !isNumber(ref.weight) || !Array.isArray(ref.filters)) {
        return { ok: false, reason: `rule ${r.id} has a malformed backendRef` };
      }
      if (ref.backend !== undefined && !(isString(ref.backend) && isObject(backends[ref.backend]))) {
        return { ok: false, reason: `rule ${r.id} names backend ${String(ref.backend)} that the table lacks` };
      }
    }
  }
  for (const [id, b] of Object.entries(backends)) {
    if (!isObject(b) || !Array.isArray(b.endpoints) || (b.target !== undefined && !isString(b.target)))
      return { ok: false, reason: `backend ${id} is malformed` };
    const budget = b.retryBudget;
    if (
      budget !== undefined &&
      !(isObject(budget) && [budget.percent, budget.intervalMs, budget.minRetries, budget.minIntervalMs].every(isNumber))
    )
      return { ok: false, reason: `backend ${id} has a malformed retryBudget` };
    for (const e of b.endpoints) {
      if (!isObject(e) || !isString(e.id) || !isString(e.host) || !isNumber(e.port) || !isNumber(e.weight)) {
        return { ok: false, reason: `backend ${id} has a malformed endpoint` };
      }
      if (e.scheme !== "http" && e.scheme !== "https") return { ok: false, reason: `endpoint ${e.id} has no scheme http or https` };
      if (e.keepClientHost !== undefined && e.keepClientHost !== true)
        return { ok: false, reason: `endpoint ${e.id} has a malformed keepClientHost` };
      for (const field of ["mtlsBinding", "serverName", "network"] as const)
        if (e[field] !== undefined && !isString(e[field])) return { ok: false, reason: `endpoint ${e.id} has a malformed ${field}` };
    }
  }
  for (const [protocol, index] of Object.entries(hosts)) {
    const problem = checkHostIndex(index, matches.length);
    if (problem) return { ok: false, reason: `${protocol}: ${problem}` };
  }
  const { egress } = raw;
  if (
    egress !== undefined &&
    !(
      isObject(egress) &&
      (egress.allowedHostnames === undefined || (Array.isArray(egress.allowedHostnames) && egress.allowedHostnames.every(isString))) &&
      (egress.allowLocalhost === undefined || egress.allowLocalhost === true)
    )
  )
    return { ok: false, reason: "egress must be {allowedHostnames?: string[], allowLocalhost?: true}" };
  const { locality } = raw;
  if (locality !== undefined && !(isObject(locality) && isNumber(locality.minHealthyEndpoints) && isObject(locality.clusters))) {
    return { ok: false, reason: "locality must be {minHealthyEndpoints, clusters}" };
  }
  // The checks above cover every field the Worker reads, so the cast is the parse's result.
  return { ok: true, value: raw as unknown as RouteTable };
}

function checkDirectory(v: unknown, shardCount: number): string | null {
  const isShard = (s: unknown) => isNumber(s) && Number.isInteger(s) && s >= 0 && s < shardCount;
  if (!isObject(v) || !isObject(v.exact) || !isObject(v.wildcard)) return "directory must have exact and wildcard";
  if (v.any !== undefined && !isShard(v.any)) return "directory names a shard that does not exist";
  for (const shard of [...Object.values(v.exact), ...Object.values(v.wildcard)]) {
    if (!isShard(shard)) return "directory names a shard that does not exist";
  }
  return null;
}

/** The root of a sharded table: its directory must name only shards it lists. */
export function parseShardedTable(raw: unknown): ParseResult<ShardedTable> {
  if (!isObject(raw) || raw.sharded !== true) return { ok: false, reason: "not a sharded table" };
  if (raw.schemaVersion !== SCHEMA_VERSION) {
    return { ok: false, reason: `table has schemaVersion ${String(raw.schemaVersion)}, this Worker reads ${SCHEMA_VERSION}` };
  }
  if (!isString(raw.version) || !isString(raw.name)) return { ok: false, reason: "table lacks version or name" };
  const { shards, directory } = raw;
  if (!Array.isArray(shards) || shards.length === 0 || !isObject(directory)) {
    return { ok: false, reason: "sharded table lacks shards or directory" };
  }
  for (const [protocol, entry] of Object.entries(directory)) {
    const problem = checkDirectory(entry, shards.length);
    if (problem) return { ok: false, reason: `${protocol}: ${problem}` };
  }
  return { ok: true, value: raw as unknown as ShardedTable };
}

/** What a `table/<name>/<version>` value holds: a whole table or a sharded table's root. */
export function parseStoredTable(raw: unknown): ParseResult<StoredTable> {
  return isObject(raw) && raw.sharded === true ? parseShardedTable(raw) : parseRouteTable(raw);
}

export function parseTablePointer(raw: unknown): ParseResult<TablePointer> {
  if (!isObject(raw) || !isString(raw.version) || !isNumber(raw.schemaVersion) || !isString(raw.updatedAt)) {
    return { ok: false, reason: "pointer must be {version, schemaVersion, updatedAt}" };
  }
  return { ok: true, value: { version: raw.version, schemaVersion: raw.schemaVersion, updatedAt: raw.updatedAt } };
}

export function parseTableHistory(raw: unknown): ParseResult<TableHistoryEntry[]> {
  if (!Array.isArray(raw)) return { ok: false, reason: "history must be a list" };
  const entries: TableHistoryEntry[] = [];
  for (const e of raw) {
    if (!isObject(e) || !isString(e.version) || !isString(e.writtenAt) || !isNumber(e.rules) || !isNumber(e.backends)) {
      return { ok: false, reason: "history entry must be {version, writtenAt, rules, backends}" };
    }
    if (e.shards !== undefined && !isNumber(e.shards)) return { ok: false, reason: "history entry's shards must be a number" };
    entries.push({
      version: e.version,
      writtenAt: e.writtenAt,
      rules: e.rules,
      backends: e.backends,
      ...(e.shards !== undefined ? { shards: e.shards } : {}),
    });
  }
  return { ok: true, value: entries };
}

/** The health record, or null when it is absent or malformed (the Worker then keeps what it knew). */
export function parseHealthRecord(raw: unknown): HealthRecord | null {
  if (!isObject(raw) || !isString(raw.updatedAt) || !Array.isArray(raw.unhealthy) || !raw.unhealthy.every(isString)) return null;
  return { updatedAt: raw.updatedAt, unhealthy: raw.unhealthy };
}
