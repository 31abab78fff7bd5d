/**
 * @module The schema of what KV holds, field by field, beside the types it checks (route-table.ts): the
 * compiled table and its shards, a sharded table's root, the pointer, the history and the health record.
 * The Worker applies it to every value it reads (parse-route-table.ts) before it trusts one, so a table
 * altered or damaged in KV is refused whole, never half read; the tests hold the compiler's output to it
 * strictly (no field it does not name). Cross-references (a match's rule, a backendRef's backend, a host
 * index's match) are checked in parse-route-table.ts.
 */
import { bool, int, list, map, num, obj, type Schema, str, union } from "./structural-schema";

const text = str();
const count = int(0);
const port = int(1, 65535);
const milliseconds = int(0);
const httpStatus = int(100, 599);
const nameValue = obj({ name: text, value: text }, { required: ["name", "value"] });

const SOURCE = obj({ cluster: text, kind: text, namespace: text, name: text }, { required: ["cluster", "kind", "namespace", "name"] });

const HEADER_MODIFIER = obj({ set: list(nameValue), add: list(nameValue), remove: list(text) }, { required: ["set", "add", "remove"] });

const PATH_MODIFIER = union("type", {
  ReplaceFullPath: obj({ type: text, value: text }, { required: ["value"] }),
  ReplacePrefixMatch: obj({ type: text, value: text, prefix: text }, { required: ["value", "prefix"] }),
});

const FILTER = union("type", {
  RequestHeaderModifier: obj({ type: text, modifier: HEADER_MODIFIER }, { required: ["modifier"] }),
  ResponseHeaderModifier: obj({ type: text, modifier: HEADER_MODIFIER }, { required: ["modifier"] }),
  RequestRedirect: obj(
    {
      type: text,
      scheme: str({ enum: ["http", "https"] }),
      hostname: text,
      port,
      path: PATH_MODIFIER,
      statusCode: int(300, 399),
    },
    { required: ["statusCode"] },
  ),
  URLRewrite: obj({ type: text, hostname: text, path: PATH_MODIFIER }),
  RequestMirror: obj({ type: text, backend: text, percent: num(0, 100) }, { required: ["backend", "percent"] }),
  CORS: obj(
    {
      type: text,
      allowOrigins: list(text),
      allowCredentials: bool(),
      allowMethods: list(text),
      allowHeaders: list(text),
      exposeHeaders: list(text),
      maxAge: int(0),
    },
    { required: ["allowOrigins", "allowCredentials", "allowMethods", "allowHeaders", "exposeHeaders", "maxAge"] },
  ),
});

const VALUE_MATCH = obj(
  { name: text, type: str({ enum: ["Exact", "RegularExpression"] }), value: text },
  { required: ["name", "type", "value"] },
);

const MATCH = obj(
  {
    id: text,
    rule: count,
    path: obj({ type: str({ enum: ["Exact", "PathPrefix", "RegularExpression"] }), value: text }, { required: ["type", "value"] }),
    headers: list(VALUE_MATCH),
    queryParams: list(VALUE_MATCH),
    method: text,
  },
  { required: ["id", "rule", "path", "headers", "queryParams"] },
);

const BACKEND_REF = obj(
  {
    weight: count,
    backend: text,
    invalid: obj({ reason: text, message: text }, { required: ["reason", "message"] }),
    filters: list(FILTER),
  },
  { required: ["weight", "filters"] },
);

const SESSION = obj(
  {
    scope: text,
    type: str({ enum: ["Cookie", "Header"] }),
    name: text,
    path: text,
    sameSite: str({ enum: ["Strict", "Lax", "None"] }),
    lifetime: str({ enum: ["Session", "Permanent"] }),
    absoluteTimeoutMs: milliseconds,
    idleTimeoutMs: milliseconds,
  },
  { required: ["scope", "type", "name"] },
);

const RULE = obj(
  {
    id: text,
    source: SOURCE,
    listenerPort: int(0, 65535),
    clientCertificate: str({ enum: ["required"] }),
    backendRefs: list(BACKEND_REF),
    filters: list(FILTER),
    timeouts: obj({ requestMs: milliseconds, backendRequestMs: milliseconds }),
    retry: obj({ codes: list(httpStatus), attempts: count, backoffMs: milliseconds }, { required: ["codes", "attempts", "backoffMs"] }),
    session: SESSION,
    invalid: text,
  },
  { required: ["id", "source", "listenerPort", "backendRefs", "filters"] },
);

const ENDPOINT = obj(
  {
    id: text,
    cluster: text,
    scheme: str({ enum: ["http", "https"] }),
    host: text,
    port,
    serverName: text,
    keepClientHost: bool(true),
    weight: count,
    ready: bool(),
    serving: bool(),
    terminating: bool(),
    zone: text,
    mtlsBinding: text,
    network: text,
    external: bool(true),
  },
  { required: ["id", "cluster", "scheme", "host", "port", "weight", "ready", "serving", "terminating"] },
);

const BACKEND = obj(
  {
    id: text,
    target: text,
    source: SOURCE,
    port: int(0, 65535),
    endpoints: list(ENDPOINT),
    healthCheck: obj(
      {
        path: text,
        timeoutMs: milliseconds,
        expectedStatuses: list(httpStatus),
        healthyThreshold: int(1),
        unhealthyThreshold: int(1),
      },
      { required: ["path", "timeoutMs", "expectedStatuses", "healthyThreshold", "unhealthyThreshold"] },
    ),
    retryBudget: obj(
      { percent: num(0, 100), intervalMs: milliseconds, minRetries: count, minIntervalMs: milliseconds },
      { required: ["percent", "intervalMs", "minRetries", "minIntervalMs"] },
    ),
  },
  { required: ["id", "source", "port", "endpoints"] },
);

const HOST_INDEX = obj(
  { exact: map(list(count)), wildcard: map(list(count)), any: list(count) },
  { required: ["exact", "wildcard", "any"] },
);

const HEALTH_CHECKS = obj({ maxEndpointsPerRun: int(1) }, { required: ["maxEndpointsPerRun"] });

/** A whole table, or one shard of a sharded one. */
export const ROUTE_TABLE_SCHEMA: Schema = obj(
  {
    schemaVersion: int(),
    version: text,
    name: text,
    listeners: list(
      obj(
        { id: text, protocol: str({ enum: ["HTTP", "HTTPS"] }), port: int(0, 65535), hostname: text },
        { required: ["id", "protocol", "port"] },
      ),
    ),
    hosts: obj({ HTTP: HOST_INDEX, HTTPS: HOST_INDEX }),
    matches: list(MATCH),
    rules: list(RULE),
    backends: map(BACKEND),
    locality: obj(
      {
        minHealthyEndpoints: int(1),
        clusters: map(obj({ continent: text, countries: list(text), colos: list(text) })),
      },
      { required: ["minHealthyEndpoints", "clusters"] },
    ),
    clusters: map(obj({ draining: bool(true), disabled: bool(true), priority: int(0), staleSince: text })),
    failover: obj({ minHealthyEndpoints: int(1) }, { required: ["minHealthyEndpoints"] }),
    egress: obj({ allowedHostnames: list(text), allowLocalhost: bool(true) }),
    healthChecks: HEALTH_CHECKS,
  },
  { required: ["schemaVersion", "version", "name", "listeners", "hosts", "matches", "rules", "backends"] },
);

const DIRECTORY = obj({ exact: map(count), wildcard: map(count), any: count }, { required: ["exact", "wildcard"] });

/** The root of a sharded table. */
export const SHARDED_TABLE_SCHEMA: Schema = obj(
  {
    schemaVersion: int(),
    sharded: bool(true),
    version: text,
    name: text,
    directory: obj({ HTTP: DIRECTORY, HTTPS: DIRECTORY }),
    shards: list(obj({ hosts: count, rules: count, bytes: count }, { required: ["hosts", "rules", "bytes"] }), { min: 1 }),
    healthChecks: HEALTH_CHECKS,
  },
  { required: ["schemaVersion", "sharded", "version", "name", "directory", "shards"] },
);

export const POINTER_SCHEMA: Schema = obj(
  { version: text, schemaVersion: int(), updatedAt: text },
  { required: ["version", "schemaVersion", "updatedAt"] },
);

export const HISTORY_SCHEMA: Schema = list(
  obj(
    { version: text, writtenAt: text, rules: count, backends: count, shards: count },
    { required: ["version", "writtenAt", "rules", "backends"] },
  ),
);

export const HEALTH_RECORD_SCHEMA: Schema = obj({ updatedAt: text, unhealthy: list(text) }, { required: ["updatedAt", "unhealthy"] });
