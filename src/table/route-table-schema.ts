/**
 * @module The schema of what KV holds, written against the types it checks (route-table.ts): the compiled
 * table and its shards, a sharded table's root, the pointer, the history and the health record. Each schema is
 * typed by its contract (`Schema<RouteTable>`), so a field added to a type and not here, or here and not there,
 * fails `tsc`. The Worker applies it to every value it reads (parse-route-table.ts) before it trusts one, so a
 * table altered or damaged in KV is refused whole, never half read; the tests hold the compiler's output to it
 * strictly (no field it does not name). Cross-references (a match's rule, a backendRef's backend, a host
 * index's match) are checked in parse-route-table.ts.
 */
import type {
  CompiledBackend,
  CompiledBackendRef,
  CompiledEndpoint,
  CompiledFilter,
  CompiledHealthCheck,
  CompiledListener,
  CompiledMatch,
  CompiledRetryBudget,
  CompiledRule,
  CompiledSession,
  CompiledValueMatch,
  HeaderModifier,
  HealthRecord,
  HostIndex,
  PathModifier,
  RollbackMarker,
  RouteTable,
  ShardDirectory,
  ShardedTable,
  SourceRef,
  TableHistoryEntry,
  TablePointer,
} from "./route-table";
import { SCHEMA_VERSION } from "./route-table";
import type { CanaryAnalysis, CanaryEnd, CanaryFigures, CanaryPointer, CanaryRecord, CanaryVerdict, VersionFigures } from "./canary";
import { bool, int, intLiteral, list, literal, map, num, obj, opt, type Schema, str, union } from "./structural-schema";

const text = str();
const count = int(0);
const port = int(1, 65535);
const milliseconds = int(0);
const httpStatus = int(100, 599);
const nameValue = obj<{ name: string; value: string }>({ name: text, value: text });

const SOURCE = obj<SourceRef>({ cluster: text, kind: text, namespace: text, name: text });

const HEADER_MODIFIER = obj<HeaderModifier>({ set: list(nameValue), add: list(nameValue), remove: list(text) });

const PATH_MODIFIER = union<PathModifier, "type">("type", {
  ReplaceFullPath: obj({ type: literal("ReplaceFullPath"), value: text }),
  ReplacePrefixMatch: obj({ type: literal("ReplacePrefixMatch"), value: text, prefix: text }),
});

const FILTER = union<CompiledFilter, "type">("type", {
  RequestHeaderModifier: obj({ type: literal("RequestHeaderModifier"), modifier: HEADER_MODIFIER }),
  ResponseHeaderModifier: obj({ type: literal("ResponseHeaderModifier"), modifier: HEADER_MODIFIER }),
  RequestRedirect: obj({
    type: literal("RequestRedirect"),
    scheme: opt(str({ enum: ["http", "https"] })),
    hostname: opt(text),
    port: opt(port),
    path: opt(PATH_MODIFIER),
    statusCode: int(300, 399),
  }),
  URLRewrite: obj({ type: literal("URLRewrite"), hostname: opt(text), path: opt(PATH_MODIFIER) }),
  RequestMirror: obj({ type: literal("RequestMirror"), backend: text, percent: num(0, 100) }),
  CORS: obj({
    type: literal("CORS"),
    allowOrigins: list(text),
    allowCredentials: bool(),
    allowMethods: list(text),
    allowHeaders: list(text),
    exposeHeaders: list(text),
    maxAge: int(0),
  }),
});

const VALUE_MATCH = obj<CompiledValueMatch>({ name: text, type: str({ enum: ["Exact", "RegularExpression"] }), value: text });

const MATCH = obj<CompiledMatch>({
  id: text,
  rule: count,
  path: obj({ type: str({ enum: ["Exact", "PathPrefix", "RegularExpression"] }), value: text }),
  headers: list(VALUE_MATCH),
  queryParams: list(VALUE_MATCH),
  method: opt(text),
});

const BACKEND_REF = obj<CompiledBackendRef>({
  weight: count,
  backend: opt(text),
  invalid: opt(obj({ reason: text, message: text })),
  filters: list(FILTER),
});

const SESSION = obj<CompiledSession>({
  scope: text,
  type: str({ enum: ["Cookie", "Header"] }),
  name: text,
  path: opt(text),
  sameSite: opt(str({ enum: ["Strict", "Lax", "None"] })),
  lifetime: opt(str({ enum: ["Session", "Permanent"] })),
  absoluteTimeoutMs: opt(milliseconds),
  idleTimeoutMs: opt(milliseconds),
});

const RULE = obj<CompiledRule>({
  id: text,
  source: SOURCE,
  listenerPort: int(0, 65535),
  clientCertificate: opt(str({ enum: ["required"] })),
  backendRefs: list(BACKEND_REF),
  filters: list(FILTER),
  timeouts: opt(obj({ requestMs: opt(milliseconds), backendRequestMs: opt(milliseconds) })),
  retry: opt(obj({ codes: list(httpStatus), attempts: count, backoffMs: milliseconds })),
  session: opt(SESSION),
  invalid: opt(text),
});

const ENDPOINT = obj<CompiledEndpoint>({
  id: text,
  cluster: text,
  scheme: str({ enum: ["http", "https"] }),
  host: text,
  port,
  serverName: opt(text),
  keepClientHost: opt(bool(true)),
  weight: count,
  ready: bool(),
  serving: bool(),
  terminating: bool(),
  zone: opt(text),
  mtlsBinding: opt(text),
  network: opt(text),
  external: opt(bool(true)),
});

const HEALTH_CHECK = obj<CompiledHealthCheck>({
  path: text,
  timeoutMs: milliseconds,
  expectedStatuses: list(httpStatus),
  healthyThreshold: int(1),
  unhealthyThreshold: int(1),
});

const RETRY_BUDGET = obj<CompiledRetryBudget>({
  percent: num(0, 100),
  intervalMs: milliseconds,
  minRetries: count,
  minIntervalMs: milliseconds,
});

const BACKEND = obj<CompiledBackend>({
  id: text,
  target: opt(text),
  source: SOURCE,
  port: int(0, 65535),
  endpoints: list(ENDPOINT),
  healthCheck: opt(HEALTH_CHECK),
  retryBudget: opt(RETRY_BUDGET),
});

const HOST_INDEX = obj<HostIndex>({ exact: map(list(count)), wildcard: map(list(count)), any: list(count) });

const HEALTH_CHECKS = obj<{ maxEndpointsPerRun: number }>({ maxEndpointsPerRun: int(1) });

const LISTENER = obj<CompiledListener>({
  id: text,
  protocol: str({ enum: ["HTTP", "HTTPS"] }),
  port: int(0, 65535),
  hostname: opt(text),
});

/** A whole table, or one shard of a sharded one. */
export const ROUTE_TABLE_SCHEMA: Schema<RouteTable> = obj<RouteTable>({
  schemaVersion: intLiteral(SCHEMA_VERSION),
  version: text,
  name: text,
  listeners: list(LISTENER),
  hosts: obj({ HTTP: opt(HOST_INDEX), HTTPS: opt(HOST_INDEX) }),
  matches: list(MATCH),
  rules: list(RULE),
  backends: map(BACKEND),
  locality: opt(
    obj({
      minHealthyEndpoints: int(1),
      clusters: map(obj({ continent: opt(text), countries: opt(list(text)), colos: opt(list(text)) })),
    }),
  ),
  clusters: opt(
    map(
      obj({
        account: opt(obj({ routes: count, services: count, endpoints: count, readyEndpoints: count, idle: opt(text) })),
        draining: opt(bool(true)),
        disabled: opt(bool(true)),
        priority: opt(int(0)),
        staleSince: opt(text),
      }),
    ),
  ),
  failover: opt(obj({ minHealthyEndpoints: int(1) })),
  egress: opt(obj({ allowedHostnames: opt(list(text)), allowLocalhost: opt(bool(true)) })),
  healthChecks: opt(HEALTH_CHECKS),
});

const DIRECTORY = obj<ShardDirectory>({ exact: map(count), wildcard: map(count), any: opt(count) });

/** The root of a sharded table. */
export const SHARDED_TABLE_SCHEMA: Schema<ShardedTable> = obj<ShardedTable>({
  schemaVersion: intLiteral(SCHEMA_VERSION),
  sharded: bool(true),
  version: text,
  name: text,
  directory: obj({ HTTP: opt(DIRECTORY), HTTPS: opt(DIRECTORY) }),
  shards: list(obj({ hosts: count, rules: count, bytes: count }), { min: 1 }),
  healthChecks: opt(HEALTH_CHECKS),
});

const CANARY_POINTER = obj<CanaryPointer>({
  id: text,
  version: text,
  percent: num(0, 100),
  startedAt: text,
  by: text,
  analysis: obj<CanaryAnalysis>({ windowMs: milliseconds, minRequests: count, maxErrorRateIncrease: num(0, 1) }),
});

export const POINTER_SCHEMA: Schema<TablePointer> = obj<TablePointer>({
  version: text,
  schemaVersion: int(),
  updatedAt: text,
  rolledBack: opt(obj<RollbackMarker>({ from: text, at: text, by: text })),
  canary: opt(CANARY_POINTER),
});

const VERSION_FIGURES = obj<VersionFigures>({ version: text, requests: count, errors: count });

export const CANARY_RECORD_SCHEMA: Schema<CanaryRecord> = obj<CanaryRecord>({
  canary: CANARY_POINTER,
  current: text,
  figures: opt(obj<CanaryFigures>({ canary: VERSION_FIGURES, current: VERSION_FIGURES, fromMinute: text, toMinute: text })),
  verdict: opt(obj<CanaryVerdict>({ decision: str({ enum: ["promote", "revert", "wait"] }), reason: text })),
  analysedAt: opt(text),
  ended: opt(obj<CanaryEnd>({ outcome: str({ enum: ["promoted", "reverted", "superseded"] }), at: text, by: text, reason: text })),
});

export const HISTORY_SCHEMA: Schema<TableHistoryEntry[]> = list(
  obj<TableHistoryEntry>({
    version: text,
    writtenAt: text,
    rules: count,
    backends: count,
    shards: opt(count),
    summary: opt(text),
    previous: opt(text),
    canary: opt(obj({ id: text, percent: num(0, 100) })),
  }),
);

export const HEALTH_RECORD_SCHEMA: Schema<HealthRecord> = obj<HealthRecord>({ updatedAt: text, unhealthy: list(text) });
