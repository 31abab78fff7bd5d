/** @module The compiled RouteTable: the versioned, plain-JSON contract between the sync CLI and the Worker. */
import type { CanaryPointer } from "./canary";

/** Bumped whenever the Worker could misread a table written by another version. */
export const SCHEMA_VERSION = 1;

/** Where a compiled piece came from, so logs and diagnostics can name the object. */
export interface SourceRef {
  cluster: string;
  kind: string;
  namespace: string;
  name: string;
}

export type Protocol = "HTTP" | "HTTPS";

/** One Gateway listener the edge serves. */
export interface CompiledListener {
  /** `<cluster>/<namespace>/<gateway>/<listener>` */
  id: string;
  protocol: Protocol;
  port: number;
  hostname?: string;
}

export type PathMatchType = "Exact" | "PathPrefix" | "RegularExpression";
export type ValueMatchType = "Exact" | "RegularExpression";

export interface CompiledPathMatch {
  type: PathMatchType;
  /** PathPrefix values are stored without a trailing slash (except "/"). */
  value: string;
}

export interface CompiledValueMatch {
  /** Header names are lower-cased at compile time; query names keep their case (they are case-sensitive). */
  name: string;
  type: ValueMatchType;
  value: string;
}

/** One HTTPRouteMatch of one rule. The host index lists these in precedence order. */
export interface CompiledMatch {
  /** `<cluster>/<namespace>/<route>/rule/<i>/match/<j>` */
  id: string;
  /** Index into `RouteTable.rules`. */
  rule: number;
  path: CompiledPathMatch;
  headers: CompiledValueMatch[];
  queryParams: CompiledValueMatch[];
  method?: string;
}

export interface HeaderModifier {
  set: { name: string; value: string }[];
  add: { name: string; value: string }[];
  remove: string[];
}

export type PathModifier = { type: "ReplaceFullPath"; value: string } | { type: "ReplacePrefixMatch"; value: string; prefix: string };

export type CompiledFilter =
  | { type: "RequestHeaderModifier"; modifier: HeaderModifier }
  | { type: "ResponseHeaderModifier"; modifier: HeaderModifier }
  | {
      type: "RequestRedirect";
      scheme?: "http" | "https";
      hostname?: string;
      port?: number;
      path?: PathModifier;
      statusCode: number;
    }
  | { type: "URLRewrite"; hostname?: string; path?: PathModifier }
  /** A copy of the request goes to one endpoint of `backend` (for `percent` of requests); its answer is ignored. */
  | { type: "RequestMirror"; backend: string; percent: number }
  /** CORS (rule level): the gateway answers preflights and adds the response headers. */
  | {
      type: "CORS";
      allowOrigins: string[];
      allowCredentials: boolean;
      allowMethods: string[];
      allowHeaders: string[];
      exposeHeaders: string[];
      maxAge: number;
    };

/** `rules[].retry` (GEP-1731): `attempts` retries after the first try, on these codes or a connection error. */
export interface CompiledRetry {
  codes: number[];
  attempts: number;
  backoffMs: number;
}

/**
 * A weighted backendRef of a rule. `backend` names an entry of `RouteTable.backends`;
 * when the ref could not be resolved it is absent and `invalid` says why: the ref keeps its
 * weight share and that share answers 500 (Gateway API: invalid backendRefs).
 */
export interface CompiledBackendRef {
  weight: number;
  backend?: string;
  invalid?: { reason: string; message: string };
  filters: CompiledFilter[];
}

export type SameSite = "Strict" | "Lax" | "None";

/**
 * Session persistence of one rule (GEP-1619): a token in a cookie or header pins the client to an
 * endpoint. `scope` keeps every rule's sessions apart, even when two rules share a backend.
 */
export interface CompiledSession {
  /** `<cluster>/<namespace>/<route>/rule/<i>` (the same for every listener the rule is attached to). */
  scope: string;
  type: "Cookie" | "Header";
  /** Cookie or header name. */
  name: string;
  /** Cookie only. */
  path?: string;
  sameSite?: SameSite;
  /** Cookie only: Permanent cookies carry Max-Age = absoluteTimeout; Session cookies carry neither. */
  lifetime?: "Session" | "Permanent";
  absoluteTimeoutMs?: number;
  idleTimeoutMs?: number;
}

export interface CompiledRule {
  /** `<cluster>/<namespace>/<route>/rule/<i>` */
  id: string;
  source: SourceRef;
  /** The port of the listener this rule was attached through (redirects default to it). */
  listenerPort: number;
  /**
   * Set when an HTTPS listener it is attached through on that port validates client certificates
   * (Gateway spec.tls.frontend, AllowValidOnly): a request without one Cloudflare verified answers 403.
   */
  clientCertificate?: "required";
  backendRefs: CompiledBackendRef[];
  filters: CompiledFilter[];
  timeouts?: { requestMs?: number; backendRequestMs?: number };
  retry?: CompiledRetry;
  session?: CompiledSession;
  /**
   * Set when the sync found the rule unusable (an invalid filter, backendRef list, timeout...) but its
   * matches valid: the requests it matches are answered 500 rather than falling through to another rule
   * that would serve them without the rule's filters.
   */
  invalid?: string;
}

/** One reachable endpoint of a backend. */
export interface CompiledEndpoint {
  /** `<cluster>/<host>:<port>`: stable across syncs, used for session pins and logs. */
  id: string;
  cluster: string;
  scheme: "http" | "https";
  host: string;
  port: number;
  /**
   * The name TLS is spoken under (a BackendTLSPolicy's hostname): the Worker connects to
   * `https://<serverName>:<port>`, so it is the SNI and the name the certificate is checked for, and asks
   * Cloudflare to resolve it to `host` (`cf.resolveOverride`).
   */
  serverName?: string;
  /**
   * The origin is to see the client's Host (or a URLRewrite's hostname): the Worker's URL names that host
   * and `cf.resolveOverride` names this endpoint's host (a name, in the Worker's zone).
   */
  keepClientHost?: true;
  /** Relative share among the backend's endpoints (the cluster's weight in the edge settings). */
  weight: number;
  ready: boolean;
  serving: boolean;
  terminating: boolean;
  zone?: string;
  /** Name of the Workers mTLS certificate binding that presents the client certificate (XBackend ClientAndServer). */
  mtlsBinding?: string;
  /**
   * Name of the Workers VPC network binding (`[[vpc_networks]]`) the endpoint is reached through: the Worker
   * sends every request for it with that binding's fetch(), whose URL names the (private) address.
   */
  network?: string;
  /** An XBackend's endpoint: outside every cluster, subject to the egress allow-list at the edge too. */
  external?: true;
}

/**
 * What external (XBackend) endpoints may name: inside the allow-list when there is one, and never the
 * machine itself or a private or link-local address unless `allowLocalhost` (local development).
 */
export interface EgressPolicy {
  allowedHostnames?: string[];
  allowLocalhost?: true;
}

/** Whether an endpoint takes new traffic: ready, not terminating, weight above 0. */
export const takesNewTraffic = (e: CompiledEndpoint): boolean => e.ready && !e.terminating && e.weight > 0;

/** Where a cluster runs, in the terms Cloudflare gives each request (`request.cf`). */
export interface ClusterLocality {
  /** Two-letter continent code as in `request.cf.continent` (NA, EU, AS, OC, SA, AF, AN). */
  continent?: string;
  /** ISO 3166-1 alpha-2 country codes (`request.cf.country`) nearest to this cluster. */
  countries?: string[];
  /** IATA codes of Cloudflare data centers (`request.cf.colo`) nearest to this cluster. */
  colos?: string[];
}

/** Locality preference: present only when the edge settings enable it. */
export interface LocalityPolicy {
  /** A tier of nearer clusters is used alone only when it has at least this many ready endpoints. */
  minHealthyEndpoints: number;
  clusters: Record<string, ClusterLocality>;
}

/**
 * What one cluster contributes to the table, counted by the sync: the routes with a copy in it, its Services
 * (and other backends) whose endpoints are in the table, and those endpoints. `idle` says why a cluster takes no
 * new traffic when it takes none, so the edge's status page can say it too.
 */
export interface ClusterAccount {
  routes: number;
  services: number;
  endpoints: number;
  readyEndpoints: number;
  idle?: string;
}

/**
 * What the table says of one cluster beyond its endpoints: what it contributes, the operator's intent from
 * kedge.yaml and what the sync knows of the cluster's API. Every configured cluster has one.
 */
export interface CompiledCluster {
  /** Absent only in tables written by an older sync (the Worker still reads those). */
  account?: ClusterAccount;
  /** Draining: its endpoints take no new sessions and no unpinned traffic; a pinned session stays while its endpoint is ready and healthy. */
  draining?: true;
  /** Disabled: none of its endpoints are in the table (its objects still compile, and their status is written). */
  disabled?: true;
  /** Failover priority, 0 first: a cluster of priority n takes traffic only while those of lower numbers lack `failover.minHealthyEndpoints` usable endpoints. */
  priority?: number;
  /** The cluster's API stopped answering `sync --watch` at this time (ISO 8601): the table holds its last snapshot. */
  staleSince?: string;
}

/** Failover between cluster priorities: present when some cluster has a priority above 0. */
export interface FailoverPolicy {
  /** A backend's clusters of the lowest priorities are used alone while they have at least this many usable endpoints. */
  minHealthyEndpoints: number;
}

/** Active health check of a backend's endpoints, run by the Worker's Cron Trigger. */
export interface CompiledHealthCheck {
  /** Path and query probed on each endpoint. */
  path: string;
  timeoutMs: number;
  expectedStatuses: number[];
  healthyThreshold: number;
  unhealthyThreshold: number;
}

/**
 * A backend's retry budget (XBackendTrafficPolicy retryConstraint, GEP-3388): over `intervalMs`, retries
 * may number `percent` of its requests plus a reserve of `minRetries` per `minIntervalMs` (the reserve
 * lets a quiet backend's rare failures be retried; the share caps a busy failing backend's extra load).
 */
export interface CompiledRetryBudget {
  percent: number;
  intervalMs: number;
  minRetries: number;
  minIntervalMs: number;
}

/**
 * GEP-3388's defaults, for the fields a retryConstraint leaves out and for a backend without one: 20% of
 * its requests over 10 s plus 10 retries a second, so a busy failing backend gets about 1.2x its load.
 */
export const DEFAULT_RETRY_BUDGET: CompiledRetryBudget = { percent: 20, intervalMs: 10_000, minRetries: 10, minIntervalMs: 1000 };

export interface CompiledBackend {
  /** e.g. `Service/us-east/bookinfo/reviews-v1:9080`, `Service/east,west/shop/cart:80` (the clusters it draws from) */
  id: string;
  /**
   * What a session pin names the backend by, when it is not the id: the route's backendRef target without
   * the clusters it resolved in (`Service/shop/cart:80`), so a pin outlives clusters joining or leaving.
   */
  target?: string;
  source: SourceRef;
  port: number;
  endpoints: CompiledEndpoint[];
  healthCheck?: CompiledHealthCheck;
  /** From a policy's retryConstraint; absent means the default budget. */
  retryBudget?: CompiledRetryBudget;
}

/** Rule candidates for one host pattern, per listener protocol, already in Gateway API precedence. */
export interface HostIndex {
  /** exact host → indexes into `RouteTable.matches` */
  exact: Record<string, number[]>;
  /** wildcard suffix without "*." (e.g. "example.com" for "*.example.com") → match indexes */
  wildcard: Record<string, number[]>;
  /** Hosts that no exact or wildcard entry covers. */
  any: number[];
}

export interface RouteTable {
  schemaVersion: typeof SCHEMA_VERSION;
  /** Content hash of everything below: equal config, equal version. */
  version: string;
  /** The EdgeConfig's metadata.name; also the KV key prefix. */
  name: string;
  listeners: CompiledListener[];
  hosts: Partial<Record<Protocol, HostIndex>>;
  matches: CompiledMatch[];
  rules: CompiledRule[];
  backends: Record<string, CompiledBackend>;
  locality?: LocalityPolicy;
  /** Every configured cluster, by name: what it contributes, and whether it is draining, disabled, prioritised or stale. */
  clusters?: Record<string, CompiledCluster>;
  failover?: FailoverPolicy;
  /** The edge settings' egress rules, checked again by the Worker before it contacts an external endpoint. */
  egress?: EgressPolicy;
  /** Active health checks: at most this many endpoints are probed per Cron run (subrequest limits). */
  healthChecks?: { maxEndpointsPerRun: number };
}

/** Which shard holds each host key of one protocol's host index (the keys of `HostIndex`). */
export interface ShardDirectory {
  exact: Record<string, number>;
  wildcard: Record<string, number>;
  /** The shard of the catch-all candidates; absent when the table has none. */
  any?: number;
}

/**
 * A table too large for one isolate to hold comfortably, split by host: each shard (KV `table/<name>/<version>/shard/<i>`)
 * is a complete RouteTable for its hosts, so an isolate loads the root and only the shards of the hosts it serves.
 */
export interface ShardedTable {
  schemaVersion: typeof SCHEMA_VERSION;
  sharded: true;
  /** The version of the whole table; every shard carries it too. */
  version: string;
  name: string;
  directory: Partial<Record<Protocol, ShardDirectory>>;
  shards: { hosts: number; rules: number; bytes: number }[];
  healthChecks?: { maxEndpointsPerRun: number };
}

/** What `table/<name>/<version>` holds: the whole table, or the root of a sharded one. */
export type StoredTable = RouteTable | ShardedTable;

export const isSharded = (stored: StoredTable): stored is ShardedTable => "sharded" in stored && stored.sharded === true;

/**
 * What `health/<name>` holds: the endpoints the active checks find unhealthy. Written by the health store
 * only when that set changes; every isolate reads it with the table pointer.
 */
export interface HealthRecord {
  updatedAt: string;
  unhealthy: string[];
}

/** What `table/<name>/current` holds. */
export interface TablePointer {
  version: string;
  schemaVersion: number;
  updatedAt: string;
  /**
   * Set when `kedge rollback` moved the pointer by hand, and kept until the next push: `sync --watch` does not
   * push over it while what it would push is still `from` (the version the rollback undid), only once the
   * clusters or the config change again.
   */
  rolledBack?: RollbackMarker;
  /** A canary in progress: a share of new requests and sessions gets its version (canary.ts). */
  canary?: CanaryPointer;
}

/** A rollback by hand: which version it undid, when, and who ran it. */
export interface RollbackMarker {
  /** The version served before the rollback (before the first of several in a row). */
  from: string;
  at: string;
  /** `user@host pid N`, as the push lease names a push. */
  by: string;
}

/** What `table/<name>/history` holds: newest first, at most HISTORY_LIMIT entries. */
export interface TableHistoryEntry {
  version: string;
  writtenAt: string;
  rules: number;
  backends: number;
  /** Shards stored under this version (absent: one blob). */
  shards?: number;
  /** What this version changed from the one served before it, in one line (absent in entries older than the field). */
  summary?: string;
  /** The version served before it, which `summary` is against (absent for the first, and in older entries). */
  previous?: string;
  /** Pushed as a canary (`sync --canary`): its id (its record, `table/<name>/canary/<id>`, says how it ended) and share. */
  canary?: { id: string; percent: number };
}
