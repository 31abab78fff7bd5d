/**
 * @module The table's backends and edge-wide settings: the backends a served rule uses (each with the edge
 * settings' health check, its `namespace/name` override on top, and its policy's retry budget, and without
 * the endpoints of disabled clusters), the locality policy, what the table says of each cluster (what it
 * contributes; draining, disabled, priority, stale), the egress rules and the health-check limit.
 */
import type { ClusterAccount, CompiledBackend, CompiledCluster, LocalityPolicy, RouteTable } from "../../table/route-table";
import type { BackendPolicies } from "../backends/backend-policies";
import type { BackendRegistry } from "../backends/registry";
import type { EdgeConfig } from "../input/edge-config";

function withPolicies(backend: CompiledBackend, edge: EdgeConfig, policies: BackendPolicies, disabled: Set<string>): CompiledBackend {
  const retryBudget = policies.retryBudgetFor(backend.source);
  const override = edge.healthChecks?.overrides[`${backend.source.namespace}/${backend.source.name}`] ?? {};
  return {
    ...backend,
    // A disabled cluster's pods take nothing; an XBackend's external endpoint is no cluster's to disable.
    endpoints: disabled.size === 0 ? backend.endpoints : backend.endpoints.filter((e) => e.external || !disabled.has(e.cluster)),
    ...(edge.healthChecks ? { healthCheck: { ...edge.healthChecks.defaults, ...override } } : {}),
    ...(retryBudget ? { retryBudget } : {}),
  };
}

/** Only backends a served rule uses, by id: a rejected route may have resolved some before it failed. */
export function emitBackends(
  registry: BackendRegistry,
  used: Set<string>,
  edge: EdgeConfig,
  policies: BackendPolicies,
): RouteTable["backends"] {
  const disabled = new Set(edge.clusters.filter((c) => c.state === "Disabled").map((c) => c.name));
  return Object.fromEntries(
    registry
      .entries()
      .filter(([id]) => used.has(id))
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([id, backend]) => [id, withPolicies(backend, edge, policies, disabled)]),
  );
}

function localityPolicy(edge: EdgeConfig): LocalityPolicy {
  const clusters: LocalityPolicy["clusters"] = {};
  for (const c of edge.clusters) if (c.locality) clusters[c.name] = c.locality;
  return { minHealthyEndpoints: edge.locality?.minHealthyEndpoints ?? 1, clusters };
}

/** Every configured cluster: what it contributes, and the operator's intent and the sync's knowledge of it. */
function clusterFacts(edge: EdgeConfig, accounts: Record<string, ClusterAccount>): Record<string, CompiledCluster> {
  const facts: Record<string, CompiledCluster> = {};
  for (const c of edge.clusters)
    facts[c.name] = {
      account: accounts[c.name] ?? { routes: 0, services: 0, endpoints: 0, readyEndpoints: 0 },
      ...(c.state === "Draining" ? { draining: true as const } : {}),
      ...(c.state === "Disabled" ? { disabled: true as const } : {}),
      ...(c.priority > 0 ? { priority: c.priority } : {}),
      ...(c.staleSince ? { staleSince: c.staleSince } : {}),
    };
  return facts;
}

/** What the table carries of the edge settings: locality, clusters, failover, egress rules, the health-check limit (each only when set). */
export function emitEdgeSettings(
  edge: EdgeConfig,
  accounts: Record<string, ClusterAccount>,
): Pick<RouteTable, "locality" | "clusters" | "failover" | "egress" | "healthChecks"> {
  const { allowedHostnames, allowLocalhost } = edge.egress;
  return {
    ...(edge.locality ? { locality: localityPolicy(edge) } : {}),
    clusters: clusterFacts(edge, accounts),
    ...(edge.clusters.some((c) => c.priority > 0) ? { failover: { minHealthyEndpoints: edge.failover.minHealthyEndpoints } } : {}),
    ...(allowedHostnames || allowLocalhost
      ? { egress: { ...(allowedHostnames ? { allowedHostnames } : {}), ...(allowLocalhost ? { allowLocalhost: true as const } : {}) } }
      : {}),
    ...(edge.healthChecks ? { healthChecks: { maxEndpointsPerRun: edge.healthChecks.maxEndpointsPerRun } } : {}),
  };
}
