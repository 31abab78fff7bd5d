/**
 * @module The edge settings file (`config/kedge.yaml`, kind EdgeConfig): which gatewayClassName this
 * edge serves and which clusters it balances across. A wrong edge file stops the sync (exit 2).
 */
import type { CanaryAnalysis } from "../../table/canary";
import type { Locate } from "../../gateway-api/locate";
import { isJsonObject } from "../../gateway-api/manifest";
import { hostnameProblem } from "../../gateway-api/hostname";
import { parseDuration } from "../../gateway-api/duration";
import type { ClusterLocality, CompiledHealthCheck, SameSite } from "../../table/route-table";
import {
  type AcknowledgedPolicy,
  type ClusterState,
  EDGE_CONFIG_SCHEMA,
  type EdgeConfigFile,
  type HealthCheckFile,
} from "./edge-config-schema";
import { fieldPathText, readWithDefaults } from "../../table/structural-schema";

export type { AcknowledgedPolicy, ClusterLocality, ClusterState };

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
  state: ClusterState;
  /** Failover priority: 0 (the default) first; a higher number is a standby for the lower ones. */
  priority: number;
  /**
   * Not from kedge.yaml: set by `sync --watch` when the cluster's API stopped answering (ISO 8601), so the
   * table says it holds the last snapshot.
   */
  staleSince?: string;
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

/** `spec.rollout`, in the pointer's terms (src/table/canary.ts). */
export interface RolloutSettings extends CanaryAnalysis {
  percent: number;
}

export interface EdgeConfig {
  /** The table name; the KV keys are `table/<name>/...`. */
  name: string;
  gatewayClassName: string;
  /** What status kedge writes is marked with (a GatewayClass of this controllerName is kedge's). */
  controllerName: string;
  clusters: ClusterSettings[];
  egress: EgressSettings;
  sessions: { sameSite: SameSite };
  healthChecks?: HealthCheckSettings;
  /** Absent: every ready endpoint of every cluster shares traffic by weight, wherever the request comes from. */
  locality?: LocalitySettings;
  /** How many usable endpoints the clusters of the lowest priorities need to serve a backend alone. */
  failover: { minHealthyEndpoints: number };
  /** Other implementations' policies this edge does not enforce, acknowledged on purpose (no error for them). */
  acknowledgedPolicies: AcknowledgedPolicy[];
  /** What `kedge sync --canary` uses unless its flag says otherwise (absent: the defaults, canary.ts). */
  rollout?: RolloutSettings;
}

/** The edge settings cannot be used; the message says which field and how to fix it. */
export class EdgeConfigError extends Error {
  override name = "EdgeConfigError";
}

/** A check's longest timeout. */
const MAX_CHECK_TIMEOUT_MS = 30_000;

type Problem = { path: readonly (string | number)[]; message: string };

const checkTimeoutProblem = (timeout: string | undefined): string | null => {
  if (timeout === undefined) return null;
  const ms = parseDuration(timeout);
  return ms && ms <= MAX_CHECK_TIMEOUT_MS ? null : "must be a duration from 1ms to 30s, e.g. 2s";
};

/** What the schema cannot say: rules across fields, each as a problem at its field. */
function crossFieldProblems(raw: EdgeConfigFile): Problem[] {
  const problems: Problem[] = [];
  const { spec } = raw;
  const seen = new Set<string>();
  spec.clusters.forEach((c, i) => {
    const at = ["spec", "clusters", i];
    if (seen.has(c.name)) problems.push({ path: [...at, "name"], message: `${c.name} is listed twice` });
    seen.add(c.name);
    if (c.kubeconfig !== undefined && c.kubeContext === undefined)
      problems.push({ path: [...at, "kubeconfig"], message: "needs kubeContext" });
    const e = c.endpoints;
    const here = [...at, "endpoints"];
    // The origin sees the client's Host when Cloudflare resolves the endpoint's name for it (cf.resolveOverride):
    // that needs a name, so it is for endpoints reached by hostname; a network binding connects to the address
    // its URL names, so its URL cannot name the client's host.
    if (e.keepClientHost && e.from === "EndpointSlice")
      problems.push({ path: [...here, "keepClientHost"], message: "needs endpoints reached by name (from: LoadBalancer or Hostname)" });
    if (e.keepClientHost && e.network !== undefined)
      problems.push({
        path: [...here, "keepClientHost"],
        message:
          "cannot be used with network: a VPC network binding connects to the address its URL names, so the origin sees X-Forwarded-Host",
      });
    if (e.from === "Hostname") {
      const template = e.hostnameTemplate;
      const problem =
        template === undefined || !template.includes("{service}")
          ? 'must be a string containing {service}, e.g. "{service}.{namespace}.eu.example.net"'
          : hostnameProblem(template.replaceAll(/\{(service|namespace|cluster)\}/g, "x"), false);
      if (problem) problems.push({ path: [...here, "hostnameTemplate"], message: problem });
    }
  });
  if (spec.failover && !spec.clusters.some((c) => c.priority > 0))
    problems.push({ path: ["spec", "failover"], message: "is set, but no cluster has a priority above 0 (every cluster is priority 0)" });
  if (spec.locality?.preferNearest && !spec.clusters.some((c) => c.locality))
    problems.push({ path: ["spec", "locality"], message: "is set, but no cluster has a locality (continent, countries or colos)" });
  spec.egress.allowedHostnames?.forEach((h, i) => {
    const problem = hostnameProblem(h, true);
    if (problem) problems.push({ path: ["spec", "egress", "allowedHostnames", i], message: problem });
  });
  const checks = spec.healthChecks;
  if (checks) {
    const problem = checkTimeoutProblem(checks.timeout);
    if (problem) problems.push({ path: ["spec", "healthChecks", "timeout"], message: problem });
    for (const [key, check] of Object.entries(checks.overrides)) {
      const overridden = checkTimeoutProblem(check.timeout);
      if (overridden) problems.push({ path: ["spec", "healthChecks", "overrides", key, "timeout"], message: overridden });
    }
  }
  return problems;
}

/** One line per problem (`file:line:col field: problem`), under a count. */
function describeProblems(problems: Problem[], file: string, locate?: Locate): string {
  const lines = problems.map((p) => {
    const at = locate?.at(p.path);
    const field = fieldPathText(p.path) || "(the document)";
    return `  ${file}${at ? `:${at.line}:${at.col}` : ""}: ${field}: ${p.message}`;
  });
  return `${file}: ${problems.length} problem${problems.length === 1 ? "" : "s"}:\n${lines.join("\n")}`;
}

/** How the edge reaches the cluster's endpoints, as the table compiler reads it. */
function endpointSource(e: EdgeConfigFile["spec"]["clusters"][number]["endpoints"]): EndpointSource {
  const common = { scheme: e.scheme, ...(e.network !== undefined ? { network: e.network } : {}) };
  const keep = e.keepClientHost ? { keepClientHost: true as const } : {};
  switch (e.from) {
    case "EndpointSlice":
      return { from: "EndpointSlice", ...common };
    case "LoadBalancer":
      return { from: "LoadBalancer", ...common, ...keep };
    case "Hostname":
      return { from: "Hostname", ...common, hostnameTemplate: e.hostnameTemplate!, port: e.port, ...keep };
  }
}

/** A check's fields as the table holds them (durations in ms); only the fields given. */
function compiledCheck(raw: HealthCheckFile): Partial<CompiledHealthCheck> {
  return {
    ...(raw.path !== undefined ? { path: raw.path } : {}),
    ...(raw.timeout !== undefined ? { timeoutMs: parseDuration(raw.timeout)! } : {}),
    ...(raw.expectedStatuses !== undefined ? { expectedStatuses: raw.expectedStatuses } : {}),
    ...(raw.healthyThreshold !== undefined ? { healthyThreshold: raw.healthyThreshold } : {}),
    ...(raw.unhealthyThreshold !== undefined ? { unhealthyThreshold: raw.unhealthyThreshold } : {}),
  };
}

/**
 * Reads the parsed edge settings document in one pass, as wrangler reads its config: the schema (every
 * field's type, range and default) and then the rules across fields, every problem of the file at once (with
 * `locate`, each with its line and column); the result, defaults filled in, in the compiler's terms.
 */
export function parseEdgeConfig(raw: unknown, file: string, locate?: Locate): EdgeConfig {
  if (!isJsonObject(raw)) throw new EdgeConfigError(`${file}: must be a YAML mapping`);
  const read = readWithDefaults(raw, EDGE_CONFIG_SCHEMA);
  if (!read.ok) throw new EdgeConfigError(describeProblems(read.problems, file, locate));
  const config = read.value;
  const problems = crossFieldProblems(config);
  if (problems.length > 0) throw new EdgeConfigError(describeProblems(problems, file, locate));
  const { spec } = config;
  const checks = spec.healthChecks;
  return {
    name: config.metadata.name,
    gatewayClassName: spec.gatewayClassName,
    controllerName: spec.controllerName,
    clusters: spec.clusters.map((c) => ({
      name: c.name,
      region: c.region,
      locality: c.locality,
      weight: c.weight,
      state: c.state,
      priority: c.priority,
      endpoints: endpointSource(c.endpoints),
      ...(c.kubeContext !== undefined ? { kubeContext: c.kubeContext } : {}),
      ...(c.kubeconfig !== undefined ? { kubeconfig: c.kubeconfig } : {}),
    })),
    egress: spec.egress,
    sessions: spec.sessions,
    healthChecks: checks && {
      defaults: {
        path: checks.path,
        timeoutMs: parseDuration(checks.timeout)!,
        expectedStatuses: checks.expectedStatuses,
        healthyThreshold: checks.healthyThreshold,
        unhealthyThreshold: checks.unhealthyThreshold,
      },
      overrides: Object.fromEntries(Object.entries(checks.overrides).map(([key, check]) => [key, compiledCheck(check)])),
      maxEndpointsPerRun: checks.maxEndpointsPerRun,
    },
    locality: spec.locality?.preferNearest ? { minHealthyEndpoints: spec.locality.minHealthyEndpoints } : undefined,
    failover: { minHealthyEndpoints: spec.failover?.minHealthyEndpoints ?? 1 },
    acknowledgedPolicies: spec.acknowledgedPolicies,
    rollout: {
      percent: spec.rollout.percent,
      windowMs: parseDuration(spec.rollout.window)!,
      minRequests: spec.rollout.minRequests,
      maxErrorRateIncrease: spec.rollout.maxErrorRateIncrease,
    },
  };
}
