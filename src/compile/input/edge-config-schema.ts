/**
 * @module kedge.yaml (kind EdgeConfig) as a type and its schema, stated once: `EdgeConfigFile` is the file with
 * every default filled in, and the schema, written against it, gives every field its type, range and default
 * (a field added to one and not the other fails `tsc`). The sync reports every problem of the file at once, each
 * with its line and column; config/kedge.schema.json is the same schema as a JSON Schema, so that editors
 * complete and check the file (test/unit/schemas.test.ts keeps it in step). edge-config.ts reads the file into
 * the compiler's terms.
 */
import type { ClusterLocality, SameSite } from "../../table/route-table";
import { CANARY_DEFAULTS } from "../../table/canary";
import { bool, int, list, literal, map, num, obj, opt, type Schema, str, toJsonSchema, withDefault } from "../../table/structural-schema";

/**
 * What the operator wants of a cluster's traffic: Serving (the default); Draining (no new sessions or
 * unpinned requests, pinned sessions continue); Disabled (its endpoints are left out of the table).
 */
export type ClusterState = "Serving" | "Draining" | "Disabled";

/** A policy kind (and optionally namespace and name) whose not being enforced at the edge is accepted. */
export interface AcknowledgedPolicy {
  group: string;
  kind: string;
  namespace?: string;
  name?: string;
}

/** A cluster's `endpoints`: how the edge reaches them. */
interface EndpointsFile {
  from: "EndpointSlice" | "LoadBalancer" | "Hostname";
  scheme: "http" | "https";
  hostnameTemplate?: string;
  port?: number;
  keepClientHost?: boolean;
  network?: string;
}

interface ClusterFile {
  name: string;
  region?: string;
  weight: number;
  state: ClusterState;
  priority: number;
  locality?: ClusterLocality;
  kubeContext?: string;
  kubeconfig?: string;
  endpoints: EndpointsFile;
}

/** One backend's active health check; every field optional in an override (it sets only what it changes). */
export interface HealthCheckFile {
  path?: string;
  timeout?: string;
  expectedStatuses?: number[];
  healthyThreshold?: number;
  unhealthyThreshold?: number;
}

/**
 * `spec.rollout`: the defaults of a canary push (`kedge sync --canary`): its share, and how the edge's Cron analysis
 * decides it (src/table/canary.ts CANARY_DEFAULTS says why these defaults).
 */
export interface RolloutFile {
  percent: number;
  window: string;
  minRequests: number;
  maxErrorRateIncrease: number;
}

/** kedge.yaml as the schema reads it, once every default is filled in. */
export interface EdgeConfigFile {
  apiVersion: "kedge.dev/v1alpha1";
  kind: "EdgeConfig";
  metadata: { name: string };
  spec: {
    gatewayClassName: string;
    controllerName: string;
    clusters: ClusterFile[];
    locality?: { minHealthyEndpoints: number; preferNearest: boolean };
    failover?: { minHealthyEndpoints: number };
    egress: { allowedHostnames?: string[]; allowLocalhost: boolean; clientCertificates: Record<string, string> };
    sessions: { sameSite: SameSite };
    healthChecks?: Required<HealthCheckFile> & { maxEndpointsPerRun: number; overrides: Record<string, HealthCheckFile> };
    rollout: RolloutFile;
    acknowledgedPolicies: AcknowledgedPolicy[];
  };
}

const DNS_LABEL = { pattern: /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/, hint: "a DNS label (lower-case letters, digits, '-')" };
const NAMESPACED_NAME = /^[a-z0-9-]+\/[a-z0-9.-]+$/;
const DURATION = { pattern: /^([0-9]{1,5}(h|m|s|ms)){1,4}$/, hint: "a duration like 2s or 500ms" };

/** A health check's fields. */
const CHECK = {
  path: str({ pattern: /^\//, hint: "a path starting with /" }),
  timeout: str(DURATION),
  expectedStatuses: list(int(100, 599), { min: 1 }),
  healthyThreshold: int(1, 10),
  unhealthyThreshold: int(1, 10),
};

/** An override: each field optional. */
const HEALTH_CHECK_OVERRIDE = obj<HealthCheckFile>({
  path: opt(CHECK.path),
  timeout: opt(CHECK.timeout),
  expectedStatuses: opt(CHECK.expectedStatuses),
  healthyThreshold: opt(CHECK.healthyThreshold),
  unhealthyThreshold: opt(CHECK.unhealthyThreshold),
});

/** The checks every backend gets unless overridden: the same fields, each with its default. */
const HEALTH_CHECK_DEFAULTS = {
  path: withDefault(CHECK.path, "/healthz"),
  timeout: withDefault(CHECK.timeout, "2s"),
  expectedStatuses: withDefault(CHECK.expectedStatuses, [200]),
  healthyThreshold: withDefault(CHECK.healthyThreshold, 2),
  unhealthyThreshold: withDefault(CHECK.unhealthyThreshold, 2),
};

const CLUSTER = obj<ClusterFile>({
  name: str(DNS_LABEL),
  region: opt(str()),
  weight: withDefault(int(0, 1_000_000), 1),
  state: withDefault(str({ enum: ["Serving", "Draining", "Disabled"] }), "Serving"),
  priority: withDefault(int(0, 100), 0),
  locality: opt(
    obj({
      continent: opt(str({ enum: ["AF", "AN", "AS", "EU", "NA", "OC", "SA"] })),
      countries: opt(list(str({ pattern: /^[A-Z]{2}$/, hint: "a two-letter country code like US" }))),
      colos: opt(list(str({ pattern: /^[A-Z]{3}$/, hint: "a three-letter Cloudflare colo code like IAD" }))),
    }),
  ),
  kubeContext: opt(str()),
  kubeconfig: opt(str()),
  endpoints: withDefault(
    obj({
      from: withDefault(str({ enum: ["EndpointSlice", "LoadBalancer", "Hostname"] }), "EndpointSlice"),
      scheme: withDefault(str({ enum: ["http", "https"] }), "http"),
      hostnameTemplate: opt(str()),
      port: opt(int(1, 65535)),
      keepClientHost: opt(bool()),
      network: opt(str({ pattern: /^[A-Za-z_][A-Za-z0-9_]*$/, hint: "a [[vpc_networks]] binding name of the wrangler config" })),
    }),
    {},
  ),
});

export const EDGE_CONFIG_SCHEMA: Schema<EdgeConfigFile> = obj<EdgeConfigFile>({
  apiVersion: literal("kedge.dev/v1alpha1"),
  kind: literal("EdgeConfig"),
  metadata: withDefault(
    obj({ name: withDefault(str(DNS_LABEL), "kedge") }, { note: "metadata.name: the table name (the Worker's KEDGE_TABLE)" }),
    {},
  ),
  spec: obj({
    gatewayClassName: str({ pattern: /^.+$/, hint: "the name of the GatewayClass this edge serves" }),
    // The GatewayClass's spec.controllerName, and what status entries kedge writes are marked with:
    // two edges sharing a cluster each need their own.
    controllerName: withDefault(
      str({
        pattern: /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/[A-Za-z0-9/\-._~%!$&'()*+,;=:]+$/,
        hint: "a domain-prefixed path like kedge.dev/edge",
      }),
      "kedge.dev/edge",
    ),
    clusters: list(CLUSTER, { min: 1 }),
    locality: opt(obj({ minHealthyEndpoints: withDefault(int(1, 1000), 1), preferNearest: withDefault(bool(), true) })),
    failover: opt(obj({ minHealthyEndpoints: withDefault(int(1, 1000), 1) })),
    egress: withDefault(
      obj({
        allowedHostnames: opt(list(str())),
        allowLocalhost: withDefault(bool(), false),
        clientCertificates: withDefault(
          map(
            str({ pattern: /^[A-Za-z_][A-Za-z0-9_]*$/, hint: "an mtls_certificates binding name of wrangler.toml" }),
            NAMESPACED_NAME,
            '"<namespace>/<secret name>"',
          ),
          {},
        ),
      }),
      {},
    ),
    sessions: withDefault(obj({ sameSite: withDefault(str({ enum: ["Strict", "Lax", "None"] }), "Strict") }), {}),
    healthChecks: opt(
      obj({
        ...HEALTH_CHECK_DEFAULTS,
        maxEndpointsPerRun: withDefault(int(1, 1000), 45),
        overrides: withDefault(map(HEALTH_CHECK_OVERRIDE, NAMESPACED_NAME, '"<namespace>/<backend name>"'), {}),
      }),
    ),
    rollout: withDefault(
      obj<RolloutFile>(
        {
          percent: withDefault(int(1, 99), CANARY_DEFAULTS.percent),
          window: withDefault(str(DURATION), CANARY_DEFAULTS.window),
          minRequests: withDefault(int(1, 1_000_000), CANARY_DEFAULTS.minRequests),
          maxErrorRateIncrease: withDefault(num(0, 1), CANARY_DEFAULTS.maxErrorRateIncrease),
        },
        { note: "defaults of `kedge sync --canary`: the canary's share of new requests and sessions, and how the edge decides it" },
      ),
      {},
    ),
    // Another implementation's policies that this edge does not enforce, acknowledged on purpose.
    acknowledgedPolicies: withDefault(
      list(obj<AcknowledgedPolicy>({ group: str(), kind: str(), namespace: opt(str()), name: opt(str()) })),
      [],
    ),
  }),
});

export const edgeConfigJsonSchema = (): Record<string, unknown> => ({
  $schema: "https://json-schema.org/draft/2020-12/schema",
  $id: "https://kedge.dev/schemas/edge-config.v1alpha1.json",
  title: "kedge EdgeConfig (kedge.yaml)",
  ...toJsonSchema(EDGE_CONFIG_SCHEMA),
});
