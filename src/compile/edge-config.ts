/**
 * @module The edge settings file (`config/kedge.yaml`, kind EdgeConfig): which gatewayClassName this
 * edge serves and which clusters it balances across. A wrong edge file stops the sync (exit 2).
 */
import { isJsonObject } from "../gateway-api/manifest";
import { hostnameProblem } from "../gateway-api/hostname";

export const EDGE_API_VERSION = "kedge.dev/v1alpha1";

/** How the edge reaches a cluster's endpoints (DESIGN.md §3). */
export type EndpointSource =
  | { from: "EndpointSlice"; scheme: "http" | "https" }
  | { from: "LoadBalancer"; scheme: "http" | "https" }
  | { from: "Hostname"; scheme: "http" | "https"; hostnameTemplate: string; port?: number };

export interface ClusterSettings {
  name: string;
  region?: string;
  /** Relative capacity: every endpoint of this cluster weighs this much. */
  weight: number;
  endpoints: EndpointSource;
}

export interface EdgeConfig {
  /** The table name; the KV keys are `table/<name>/...`. */
  name: string;
  gatewayClassName: string;
  clusters: ClusterSettings[];
}

/** The edge settings cannot be used; the message says which field and how to fix it. */
export class EdgeConfigError extends Error {
  override name = "EdgeConfigError";
}

const NAME = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

function parseEndpoints(raw: unknown, at: string): EndpointSource {
  if (raw === undefined) return { from: "EndpointSlice", scheme: "http" };
  if (!isJsonObject(raw)) throw new EdgeConfigError(`${at} must be a mapping`);
  const scheme = raw.scheme ?? "http";
  if (scheme !== "http" && scheme !== "https") throw new EdgeConfigError(`${at}.scheme must be http or https`);
  const from = raw.from ?? "EndpointSlice";
  switch (from) {
    case "EndpointSlice":
      return { from: "EndpointSlice", scheme };
    case "LoadBalancer":
      return { from: "LoadBalancer", scheme };
    case "Hostname": {
      const template = raw.hostnameTemplate;
      if (typeof template !== "string" || !template.includes("{service}")) {
        throw new EdgeConfigError(
          `${at}.hostnameTemplate must be a string containing {service}, e.g. "{service}.{namespace}.eu.example.net"`,
        );
      }
      const sample = template.replaceAll(/\{(service|namespace|cluster)\}/g, "x");
      const problem = hostnameProblem(sample, false);
      if (problem) throw new EdgeConfigError(`${at}.hostnameTemplate ${problem}`);
      const port = raw.port;
      if (port !== undefined && !(Number.isInteger(port) && (port as number) >= 1 && (port as number) <= 65535)) {
        throw new EdgeConfigError(`${at}.port must be 1-65535`);
      }
      return { from: "Hostname", scheme, hostnameTemplate: template, port: port as number | undefined };
    }
    default:
      throw new EdgeConfigError(`${at}.from must be EndpointSlice, LoadBalancer or Hostname (got ${JSON.stringify(from)})`);
  }
}

/** Validates the parsed edge settings document. */
export function parseEdgeConfig(raw: unknown, file: string): EdgeConfig {
  if (!isJsonObject(raw)) throw new EdgeConfigError(`${file}: must be a YAML mapping`);
  if (raw.apiVersion !== EDGE_API_VERSION || raw.kind !== "EdgeConfig") {
    throw new EdgeConfigError(`${file}: expected apiVersion ${EDGE_API_VERSION} and kind EdgeConfig`);
  }
  const metadata = isJsonObject(raw.metadata) ? raw.metadata : {};
  const name = metadata.name ?? "kedge";
  if (typeof name !== "string" || !NAME.test(name)) throw new EdgeConfigError(`${file}: metadata.name must be a DNS label`);
  const spec = isJsonObject(raw.spec) ? raw.spec : {};
  const gatewayClassName = spec.gatewayClassName;
  if (typeof gatewayClassName !== "string" || gatewayClassName === "") {
    throw new EdgeConfigError(`${file}: spec.gatewayClassName must name the GatewayClass this edge serves`);
  }
  if (!Array.isArray(spec.clusters) || spec.clusters.length === 0) {
    throw new EdgeConfigError(`${file}: spec.clusters must list at least one cluster`);
  }
  const seen = new Set<string>();
  const clusters = spec.clusters.map((c, i): ClusterSettings => {
    const at = `${file}: spec.clusters[${i}]`;
    if (!isJsonObject(c) || typeof c.name !== "string" || !NAME.test(c.name)) {
      throw new EdgeConfigError(`${at}.name must be a DNS label (it names the folder clusters/<name>/)`);
    }
    if (seen.has(c.name)) throw new EdgeConfigError(`${at}.name ${c.name} is listed twice`);
    seen.add(c.name);
    const weight = c.weight ?? 1;
    if (typeof weight !== "number" || !Number.isInteger(weight) || weight < 0 || weight > 1_000_000) {
      throw new EdgeConfigError(`${at}.weight must be an integer 0-1000000`);
    }
    if (c.region !== undefined && typeof c.region !== "string") throw new EdgeConfigError(`${at}.region must be a string`);
    return { name: c.name, region: c.region, weight, endpoints: parseEndpoints(c.endpoints, `${at}.endpoints`) };
  });
  return { name, gatewayClassName, clusters };
}
