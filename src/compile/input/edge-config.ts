/**
 * @module The edge settings file (`config/kedge.yaml`, kind EdgeConfig): which gatewayClassName this
 * edge serves and which clusters it balances across. A wrong edge file stops the sync (exit 2).
 */
import type { Locate } from "../../gateway-api/locate";
import { isJsonObject } from "../../gateway-api/manifest";
import { hostnameProblem } from "../../gateway-api/hostname";
import { parseDuration } from "../../gateway-api/duration";
import type { ClusterLocality, CompiledHealthCheck, SameSite } from "../../table/route-table";
import { EDGE_CONFIG_SCHEMA } from "./edge-config-schema";
import { fieldPathText, type SchemaProblem, validate } from "../../table/structural-schema";

export type { ClusterLocality };

export const EDGE_API_VERSION = "kedge.dev/v1alpha1";

/**
 * How the edge reaches a cluster's endpoints (DESIGN.md §3, §11). `network` names the Workers VPC network
 * binding the addresses are reached through (a cluster's `cloudflared` tunnel or virtual network): then
 * pod IPs are production endpoints.
 */
export type EndpointSource = { scheme: "http" | "https"; network?: string } & (
  | { from: "EndpointSlice" }
  | { from: "LoadBalancer"; keepClientHost?: true }
  | { from: "Hostname"; hostnameTemplate: string; port?: number; keepClientHost?: true }
);

export interface ClusterSettings {
  name: string;
  region?: string;
  locality?: ClusterLocality;
  /** Relative capacity: every endpoint of this cluster weighs this much. */
  weight: number;
  endpoints: EndpointSource;
  /** Read the cluster through the Kubernetes API with this kubeconfig context, instead of clusters/<name>/. */
  kubeContext?: string;
  /** The kubeconfig file the context is in (default: $KUBECONFIG, else ~/.kube/config). */
  kubeconfig?: string;
}

/** Which external hostnames XBackends may name, and how their client certificates map to Worker bindings. */
export interface EgressSettings {
  /** When set, an XBackend hostname must match one entry (exact, or `*.suffix` for any subdomain). */
  allowedHostnames?: string[];
  /** `localhost` names the edge's own host: refused unless a local setup opts in. */
  allowLocalhost: boolean;
  /** `<namespace>/<secret name>` of an XBackend clientCertificateRef → name of a Workers mTLS certificate binding. */
  clientCertificates: Record<string, string>;
}

/** Active health checks: defaults for every backend, overrides by backend `namespace/name`. */
export interface HealthCheckSettings {
  defaults: CompiledHealthCheck;
  overrides: Record<string, Partial<CompiledHealthCheck>>;
  maxEndpointsPerRun: number;
}

/** Prefer the clusters nearest to the request; spill over when they have too few healthy endpoints. */
export interface LocalitySettings {
  minHealthyEndpoints: number;
}

export interface EdgeConfig {
  /** The table name; the KV keys are `table/<name>/...`. */
  name: string;
  gatewayClassName: string;
  clusters: ClusterSettings[];
  egress: EgressSettings;
  sessions: { sameSite: SameSite };
  healthChecks?: HealthCheckSettings;
  /** Absent: every ready endpoint of every cluster shares traffic by weight, wherever the request comes from. */
  locality?: LocalitySettings;
  /** Other implementations' policies this edge does not enforce, acknowledged on purpose (no error for them). */
  acknowledgedPolicies: AcknowledgedPolicy[];
}

/** A policy kind (and optionally namespace and name) whose not being enforced at the edge is accepted. */
export interface AcknowledgedPolicy {
  group: string;
  kind: string;
  namespace?: string;
  name?: string;
}

/** The edge settings cannot be used; the message says which field and how to fix it. */
export class EdgeConfigError extends Error {
  override name = "EdgeConfigError";
}

const NAME = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
/** `<namespace>/<name>`, as keys of clientCertificates and health-check overrides. */
const NAMESPACED_NAME = /^[a-z0-9-]+\/[a-z0-9.-]+$/;

function parseEndpoints(raw: unknown, at: string): EndpointSource {
  if (raw === undefined) return { from: "EndpointSlice", scheme: "http" };
  if (!isJsonObject(raw)) throw new EdgeConfigError(`${at} must be a mapping`);
  const scheme = raw.scheme ?? "http";
  if (scheme !== "http" && scheme !== "https") throw new EdgeConfigError(`${at}.scheme must be http or https`);
  const from = raw.from ?? "EndpointSlice";
  // The origin sees the client's Host when Cloudflare resolves the endpoint's name for it (cf.resolveOverride):
  // that needs a name, so it is for endpoints reached by hostname.
  if (raw.keepClientHost === true && from === "EndpointSlice")
    throw new EdgeConfigError(`${at}.keepClientHost needs endpoints reached by name (from: LoadBalancer or Hostname)`);
  // A network binding's fetch() connects to the host its URL names: the URL cannot name the client's host.
  if (raw.keepClientHost === true && raw.network !== undefined)
    throw new EdgeConfigError(
      `${at}.keepClientHost cannot be used with network: a VPC network binding connects to the address its URL names, so the origin sees X-Forwarded-Host`,
    );
  const keep = raw.keepClientHost === true ? { keepClientHost: true as const } : {};
  const common: Pick<EndpointSource, "scheme" | "network"> = {
    scheme,
    ...(typeof raw.network === "string" ? { network: raw.network } : {}),
  };
  switch (from) {
    case "EndpointSlice":
      return { from: "EndpointSlice", ...common };
    case "LoadBalancer":
      return { from: "LoadBalancer", ...common, ...keep };
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
      return { from: "Hostname", ...common, hostnameTemplate: template, port: port as number | undefined, ...keep };
    }
    default:
      throw new EdgeConfigError(`${at}.from must be EndpointSlice, LoadBalancer or Hostname (got ${JSON.stringify(from)})`);
  }
}

const CODE = (length: number) => new RegExp(`^[A-Z]{${length}}$`);

function codeList(raw: unknown, at: string, length: number, example: string): string[] | undefined {
  if (raw === undefined) return undefined;
  if (!Array.isArray(raw) || !raw.every((v) => typeof v === "string" && CODE(length).test(v))) {
    throw new EdgeConfigError(`${at} must be a list of ${length}-letter upper-case codes, e.g. [${example}]`);
  }
  return raw as string[];
}

function parseLocality(raw: unknown, at: string): ClusterLocality | undefined {
  if (raw === undefined) return undefined;
  if (!isJsonObject(raw)) throw new EdgeConfigError(`${at} must be a mapping with continent, countries and/or colos`);
  const continent = raw.continent;
  if (continent !== undefined && !(typeof continent === "string" && /^(AF|AN|AS|EU|NA|OC|SA)$/.test(continent))) {
    throw new EdgeConfigError(`${at}.continent must be one of AF, AN, AS, EU, NA, OC, SA (as in request.cf.continent)`);
  }
  return {
    continent: continent as string | undefined,
    countries: codeList(raw.countries, `${at}.countries`, 2, "US, CA"),
    colos: codeList(raw.colos, `${at}.colos`, 3, "IAD, EWR"),
  };
}

function parseEgress(raw: unknown, at: string): EgressSettings {
  if (raw === undefined) return { allowLocalhost: false, clientCertificates: {} };
  if (!isJsonObject(raw)) throw new EdgeConfigError(`${at} must be a mapping`);
  let allowedHostnames: string[] | undefined;
  if (raw.allowedHostnames !== undefined) {
    if (!Array.isArray(raw.allowedHostnames)) throw new EdgeConfigError(`${at}.allowedHostnames must be a list of hostnames`);
    allowedHostnames = raw.allowedHostnames.map((h, i) => {
      const problem = typeof h === "string" ? hostnameProblem(h, true) : "must be a string";
      if (problem) throw new EdgeConfigError(`${at}.allowedHostnames[${i}] ${problem}`);
      return (h as string).toLowerCase();
    });
  }
  const allowLocalhost = raw.allowLocalhost ?? false;
  if (typeof allowLocalhost !== "boolean") throw new EdgeConfigError(`${at}.allowLocalhost must be true or false`);
  const certs = raw.clientCertificates ?? {};
  if (!isJsonObject(certs)) throw new EdgeConfigError(`${at}.clientCertificates must map "<namespace>/<secret>" to an mTLS binding name`);
  const clientCertificates: Record<string, string> = {};
  for (const [ref, binding] of Object.entries(certs)) {
    if (!NAMESPACED_NAME.test(ref)) {
      throw new EdgeConfigError(`${at}.clientCertificates key ${JSON.stringify(ref)} must be "<namespace>/<secret name>"`);
    }
    if (typeof binding !== "string" || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(binding)) {
      throw new EdgeConfigError(`${at}.clientCertificates.${ref} must name an mtls_certificates binding of wrangler.toml`);
    }
    clientCertificates[ref] = binding;
  }
  return { allowedHostnames, allowLocalhost, clientCertificates };
}

function parseLocalitySettings(raw: unknown, at: string): LocalitySettings | undefined {
  if (raw === undefined) return undefined;
  if (!isJsonObject(raw)) throw new EdgeConfigError(`${at} must be a mapping`);
  if (raw.preferNearest === false) return undefined;
  const min = raw.minHealthyEndpoints ?? 1;
  if (typeof min !== "number" || !Number.isInteger(min) || min < 1 || min > 1000) {
    throw new EdgeConfigError(`${at}.minHealthyEndpoints must be an integer 1-1000`);
  }
  return { minHealthyEndpoints: min };
}

function parseSessions(raw: unknown, at: string): { sameSite: SameSite } {
  if (raw === undefined) return { sameSite: "Strict" };
  if (!isJsonObject(raw)) throw new EdgeConfigError(`${at} must be a mapping`);
  const sameSite = raw.sameSite ?? "Strict";
  if (sameSite !== "Strict" && sameSite !== "Lax" && sameSite !== "None")
    throw new EdgeConfigError(`${at}.sameSite must be Strict, Lax or None`);
  return { sameSite };
}

function parseHealthCheck(raw: unknown, at: string, base?: CompiledHealthCheck): Partial<CompiledHealthCheck> {
  if (!isJsonObject(raw)) throw new EdgeConfigError(`${at} must be a mapping`);
  const out: Partial<CompiledHealthCheck> = {};
  if (raw.path !== undefined) {
    if (typeof raw.path !== "string" || !raw.path.startsWith("/")) throw new EdgeConfigError(`${at}.path must start with /`);
    out.path = raw.path;
  }
  if (raw.timeout !== undefined) {
    const ms = typeof raw.timeout === "string" ? parseDuration(raw.timeout) : null;
    if (!ms || ms > 30_000) throw new EdgeConfigError(`${at}.timeout must be a duration from 1ms to 30s, e.g. 2s`);
    out.timeoutMs = ms;
  }
  if (raw.expectedStatuses !== undefined) {
    const codes = raw.expectedStatuses;
    if (!Array.isArray(codes) || codes.length === 0 || !codes.every((c) => Number.isInteger(c) && c >= 100 && c <= 599)) {
      throw new EdgeConfigError(`${at}.expectedStatuses must list HTTP status codes`);
    }
    out.expectedStatuses = codes as number[];
  }
  for (const key of ["healthyThreshold", "unhealthyThreshold"] as const) {
    const n = raw[key];
    if (n === undefined) continue;
    if (!Number.isInteger(n) || (n as number) < 1 || (n as number) > 10) throw new EdgeConfigError(`${at}.${key} must be an integer 1-10`);
    out[key] = n as number;
  }
  return base ? { ...base, ...out } : out;
}

function parseHealthChecks(raw: unknown, at: string): HealthCheckSettings | undefined {
  if (raw === undefined) return undefined;
  if (!isJsonObject(raw)) throw new EdgeConfigError(`${at} must be a mapping`);
  const defaults = parseHealthCheck(raw, at, {
    path: "/healthz",
    timeoutMs: 2000,
    expectedStatuses: [200],
    healthyThreshold: 2,
    unhealthyThreshold: 2,
  }) as CompiledHealthCheck;
  const overrides: Record<string, Partial<CompiledHealthCheck>> = {};
  const rawOverrides = raw.overrides ?? {};
  if (!isJsonObject(rawOverrides)) throw new EdgeConfigError(`${at}.overrides must map "<namespace>/<backend name>" to settings`);
  for (const [key, value] of Object.entries(rawOverrides)) {
    if (!NAMESPACED_NAME.test(key)) throw new EdgeConfigError(`${at}.overrides key ${JSON.stringify(key)} must be "<namespace>/<name>"`);
    overrides[key] = parseHealthCheck(value, `${at}.overrides.${key}`);
  }
  const max = raw.maxEndpointsPerRun ?? 45;
  if (!Number.isInteger(max) || (max as number) < 1 || (max as number) > 1000)
    throw new EdgeConfigError(`${at}.maxEndpointsPerRun must be an integer 1-1000`);
  return { defaults, overrides, maxEndpointsPerRun: max as number };
}

/** Every problem the schema finds, one line each (`file:line:col field: problem`), or null. */
function schemaProblems(raw: unknown, file: string, locate?: Locate): string | null {
  const problems: SchemaProblem[] = [];
  validate(raw, EDGE_CONFIG_SCHEMA, [], problems);
  if (problems.length === 0) return null;
  const lines = problems.map((p) => {
    const at = locate?.(p.path);
    const field = fieldPathText(p.path) || "(the document)";
    return `  ${file}${at ? `:${at.line}:${at.col}` : ""}: ${field}: ${p.message}`;
  });
  return `${file}: ${problems.length} problem${problems.length === 1 ? "" : "s"}:\n${lines.join("\n")}`;
}

/**
 * Validates the parsed edge settings document: first against its schema, every problem at once (with
 * `locate`, each with its line and column), then what the schema cannot say (a cluster listed twice...).
 */
export function parseEdgeConfig(raw: unknown, file: string, locate?: Locate): EdgeConfig {
  if (!isJsonObject(raw)) throw new EdgeConfigError(`${file}: must be a YAML mapping`);
  const problems = schemaProblems(raw, file, locate);
  if (problems) throw new EdgeConfigError(problems);
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
    for (const key of ["kubeContext", "kubeconfig"] as const)
      if (c[key] !== undefined && (typeof c[key] !== "string" || c[key] === ""))
        throw new EdgeConfigError(`${at}.${key} must be a non-empty string`);
    if (c.kubeconfig !== undefined && c.kubeContext === undefined) throw new EdgeConfigError(`${at}.kubeconfig needs kubeContext`);
    return {
      name: c.name,
      region: c.region,
      locality: parseLocality(c.locality, `${at}.locality`),
      weight,
      endpoints: parseEndpoints(c.endpoints, `${at}.endpoints`),
      ...(typeof c.kubeContext === "string" ? { kubeContext: c.kubeContext } : {}),
      ...(typeof c.kubeconfig === "string" ? { kubeconfig: c.kubeconfig } : {}),
    };
  });
  const locality = parseLocalitySettings(spec.locality, `${file}: spec.locality`);
  if (locality && !clusters.some((c) => c.locality)) {
    throw new EdgeConfigError(`${file}: spec.locality is set, but no cluster has a locality (continent, countries or colos)`);
  }
  return {
    name,
    gatewayClassName,
    clusters,
    egress: parseEgress(spec.egress, `${file}: spec.egress`),
    sessions: parseSessions(spec.sessions, `${file}: spec.sessions`),
    healthChecks: parseHealthChecks(spec.healthChecks, `${file}: spec.healthChecks`),
    locality,
    acknowledgedPolicies: Array.isArray(spec.acknowledgedPolicies) ? (spec.acknowledgedPolicies as AcknowledgedPolicy[]) : [],
  };
}
