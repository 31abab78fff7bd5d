/**
 * @module The schema of `kedge.yaml` (kind EdgeConfig): every field, its type, range and default. The sync reports
 * every problem of the file at once, each with its line and column; config/kedge.schema.json is the same
 * schema as a JSON Schema, so that editors complete and check the file (test/unit/edge-config-schema.test.ts
 * keeps it in step).
 */
import { bool, int, list, map, obj, type Schema, str, toJsonSchema, withDefault } from "../../table/structural-schema";

const DNS_LABEL = { pattern: /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/, hint: "a DNS label (lower-case letters, digits, '-')" };
const NAMESPACED_NAME = /^[a-z0-9-]+\/[a-z0-9.-]+$/;
const DURATION = { pattern: /^([0-9]{1,5}(h|m|s|ms)){1,4}$/, hint: "a duration like 2s or 500ms" };

/** One backend's check: every field optional (an override sets only what it changes). */
const HEALTH_CHECK_FIELDS = {
  path: str({ pattern: /^\//, hint: "a path starting with /" }),
  timeout: str(DURATION),
  expectedStatuses: list(int(100, 599), { min: 1 }),
  healthyThreshold: int(1, 10),
  unhealthyThreshold: int(1, 10),
};

/** The checks every backend gets unless overridden: the same fields, each with its default. */
const HEALTH_CHECK_DEFAULTS = {
  path: withDefault(HEALTH_CHECK_FIELDS.path, "/healthz"),
  timeout: withDefault(HEALTH_CHECK_FIELDS.timeout, "2s"),
  expectedStatuses: withDefault(HEALTH_CHECK_FIELDS.expectedStatuses, [200]),
  healthyThreshold: withDefault(HEALTH_CHECK_FIELDS.healthyThreshold, 2),
  unhealthyThreshold: withDefault(HEALTH_CHECK_FIELDS.unhealthyThreshold, 2),
};

export const EDGE_CONFIG_SCHEMA: Schema = obj(
  {
    apiVersion: str({ enum: ["kedge.dev/v1alpha1"] }),
    kind: str({ enum: ["EdgeConfig"] }),
    metadata: withDefault(
      obj({ name: withDefault(str(DNS_LABEL), "kedge") }, { note: "metadata.name: the table name (the Worker's KEDGE_TABLE)" }),
      {},
    ),
    spec: obj(
      {
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
        clusters: list(
          obj(
            {
              name: str(DNS_LABEL),
              region: str(),
              weight: withDefault(int(0, 1_000_000), 1),
              state: withDefault(str({ enum: ["Serving", "Draining", "Disabled"] }), "Serving"),
              priority: withDefault(int(0, 100), 0),
              locality: obj({
                continent: str({ enum: ["AF", "AN", "AS", "EU", "NA", "OC", "SA"] }),
                countries: list(str({ pattern: /^[A-Z]{2}$/, hint: "a two-letter country code like US" })),
                colos: list(str({ pattern: /^[A-Z]{3}$/, hint: "a three-letter Cloudflare colo code like IAD" })),
              }),
              kubeContext: str(),
              kubeconfig: str(),
              endpoints: withDefault(
                obj({
                  from: withDefault(str({ enum: ["EndpointSlice", "LoadBalancer", "Hostname"] }), "EndpointSlice"),
                  scheme: withDefault(str({ enum: ["http", "https"] }), "http"),
                  hostnameTemplate: str(),
                  port: int(1, 65535),
                  keepClientHost: bool(),
                  network: str({ pattern: /^[A-Za-z_][A-Za-z0-9_]*$/, hint: "a [[vpc_networks]] binding name of the wrangler config" }),
                }),
                {},
              ),
            },
            { required: ["name"] },
          ),
          { min: 1 },
        ),
        locality: obj({ minHealthyEndpoints: withDefault(int(1, 1000), 1), preferNearest: withDefault(bool(), true) }),
        failover: obj({ minHealthyEndpoints: withDefault(int(1, 1000), 1) }),
        egress: withDefault(
          obj({
            allowedHostnames: list(str()),
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
        healthChecks: obj({
          ...HEALTH_CHECK_DEFAULTS,
          maxEndpointsPerRun: withDefault(int(1, 1000), 45),
          overrides: withDefault(map(obj(HEALTH_CHECK_FIELDS), NAMESPACED_NAME, '"<namespace>/<backend name>"'), {}),
        }),
        // Another implementation's policies that this edge does not enforce, acknowledged on purpose.
        acknowledgedPolicies: withDefault(
          list(obj({ group: str(), kind: str(), namespace: str(), name: str() }, { required: ["group", "kind"] })),
          [],
        ),
      },
      { required: ["gatewayClassName", "clusters"] },
    ),
  },
  { required: ["apiVersion", "kind", "spec"] },
);

export const edgeConfigJsonSchema = (): Record<string, unknown> => ({
  $schema: "https://json-schema.org/draft/2020-12/schema",
  $id: "https://kedge.dev/schemas/edge-config.v1alpha1.json",
  title: "kedge EdgeConfig (kedge.yaml)",
  ...toJsonSchema(EDGE_CONFIG_SCHEMA),
});
