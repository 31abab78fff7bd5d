/**
 * @module Parses what the Worker reads from KV against its schema (route-table-schema.ts). The Worker trusts
 * nothing it reads: a blob of another schema version or a malformed one is rejected with a reason, and the
 * caller keeps the last good table.
 */
import type { CanaryRecord } from "./canary";
import {
  CANARY_RECORD_SCHEMA,
  HEALTH_RECORD_SCHEMA,
  HISTORY_SCHEMA,
  POINTER_SCHEMA,
  ROUTE_TABLE_SCHEMA,
  SHARDED_TABLE_SCHEMA,
} from "./route-table-schema";
import {
  type HealthRecord,
  SCHEMA_VERSION,
  type RouteTable,
  type ShardedTable,
  type StoredTable,
  type TableHistoryEntry,
  type TablePointer,
} from "./route-table";
import { conforms, fieldPathText, firstProblem, type Schema } from "./structural-schema";

export type ParseResult<T> = { ok: true; value: T } | { ok: false; reason: string };

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

/** Why a value that does not conform to its schema is refused: `<what> <field path> <problem>`. */
function schemaReason(value: unknown, schema: Schema, what: string): string {
  const problem = firstProblem(value, schema);
  return problem ? `${what}${problem.path.length > 0 ? ` ${fieldPathText(problem.path)}` : ""} ${problem.message}` : `${what} is refused`;
}

function schemaVersionReason(raw: Json): string | null {
  return raw.schemaVersion === SCHEMA_VERSION
    ? null
    : `table has schemaVersion ${String(raw.schemaVersion)}, this Worker reads ${SCHEMA_VERSION}`;
}

/** What the schema cannot say: every index and name a table uses points at something it holds. */
function crossReferenceReason(table: RouteTable): string | null {
  const { matches, rules, backends } = table;
  for (const m of matches) if (m.rule >= rules.length) return `match ${m.id} names rule ${m.rule}, which the table lacks`;
  for (const r of rules)
    for (const ref of [...r.backendRefs, ...r.filters.flatMap((f) => (f.type === "RequestMirror" ? [{ backend: f.backend }] : []))])
      if (ref.backend !== undefined && !backends[ref.backend]) return `rule ${r.id} names backend ${ref.backend}, which the table lacks`;
  for (const [protocol, index] of Object.entries(table.hosts)) {
    const lists = [index.any, ...Object.values(index.exact), ...Object.values(index.wildcard)];
    if (lists.some((list) => list.some((i) => i >= matches.length))) return `${protocol}: host index names a match the table lacks`;
  }
  return null;
}

/**
 * A RouteTable read from KV, checked field by field against its schema (every field the Worker reads) and
 * for its cross-references; a table of another schema version, or one that fails a check, is refused
 * with the reason, and the caller keeps the last good table.
 */
export function parseRouteTable(raw: unknown): ParseResult<RouteTable> {
  if (!isObject(raw)) return { ok: false, reason: "table is not a JSON object" };
  const versionReason = schemaVersionReason(raw);
  if (versionReason) return { ok: false, reason: versionReason };
  // The schema holds every field the Worker reads: a table that conforms is the type it names.
  if (!conforms(raw, ROUTE_TABLE_SCHEMA)) return { ok: false, reason: schemaReason(raw, ROUTE_TABLE_SCHEMA, "table") };
  const broken = crossReferenceReason(raw);
  return broken ? { ok: false, reason: broken } : { ok: true, value: raw };
}

/** The root of a sharded table: its directory must name only shards it lists. */
export function parseShardedTable(raw: unknown): ParseResult<ShardedTable> {
  if (!isObject(raw) || raw.sharded !== true) return { ok: false, reason: "not a sharded table" };
  const versionReason = schemaVersionReason(raw);
  if (versionReason) return { ok: false, reason: versionReason };
  if (!conforms(raw, SHARDED_TABLE_SCHEMA)) return { ok: false, reason: schemaReason(raw, SHARDED_TABLE_SCHEMA, "sharded table") };
  const root = raw;
  const count = root.shards.length;
  for (const [protocol, entry] of Object.entries(root.directory)) {
    const shards = [...Object.values(entry.exact), ...Object.values(entry.wildcard), ...(entry.any === undefined ? [] : [entry.any])];
    if (shards.some((shard) => shard >= count)) return { ok: false, reason: `${protocol}: directory names a shard that does not exist` };
  }
  return { ok: true, value: root };
}

/** What a `table/<name>/<version>` value holds: a whole table or a sharded table's root. */
export function parseStoredTable(raw: unknown): ParseResult<StoredTable> {
  return isObject(raw) && raw.sharded === true ? parseShardedTable(raw) : parseRouteTable(raw);
}

export function parseTablePointer(raw: unknown): ParseResult<TablePointer> {
  if (!conforms(raw, POINTER_SCHEMA)) return { ok: false, reason: "pointer must be {version, schemaVersion, updatedAt}" };
  const p = raw;
  const marked = p.rolledBack ? { rolledBack: { from: p.rolledBack.from, at: p.rolledBack.at, by: p.rolledBack.by } } : {};
  const canary = p.canary ? { canary: p.canary } : {};
  return { ok: true, value: { version: p.version, schemaVersion: p.schemaVersion, updatedAt: p.updatedAt, ...marked, ...canary } };
}

export function parseTableHistory(raw: unknown): ParseResult<TableHistoryEntry[]> {
  if (!conforms(raw, HISTORY_SCHEMA)) return { ok: false, reason: schemaReason(raw, HISTORY_SCHEMA, "history") };
  return {
    ok: true,
    value: raw.map((e) => ({
      version: e.version,
      writtenAt: e.writtenAt,
      rules: e.rules,
      backends: e.backends,
      ...(e.shards !== undefined ? { shards: e.shards } : {}),
      ...(e.summary !== undefined ? { summary: e.summary } : {}),
      ...(e.previous !== undefined ? { previous: e.previous } : {}),
      ...(e.canary !== undefined ? { canary: { id: e.canary.id, percent: e.canary.percent } } : {}),
    })),
  };
}

/** The health record, or null when it is absent or malformed (the Worker then keeps what it knew). */
export function parseHealthRecord(raw: unknown): HealthRecord | null {
  return conforms(raw, HEALTH_RECORD_SCHEMA) ? { updatedAt: raw.updatedAt, unhealthy: raw.unhealthy } : null;
}

/** A canary's record, or null when it is absent or malformed (a reader then acts on the pointer alone). */
export function parseCanaryRecord(raw: unknown): CanaryRecord | null {
  return conforms(raw, CANARY_RECORD_SCHEMA) ? raw : null;
}
