/**
 * @module The table's backends and edge-wide settings: the backends a served rule uses (each with the edge
 * settings' health check, its `namespace/name` override on top, and its policy's retry budget), the locality
 * policy, the egress rules and the health-check limit.
 */
import type { CompiledBackend, LocalityPolicy, RouteTable } from "../../table/route-table";
import type { BackendPolicies } from "../backends/backend-policies";
import type { BackendRegistry } from "../backends/registry";
import type { EdgeConfig } from "../input/edge-config";

function withPolicies(backend: CompiledBackend, edge: EdgeConfig, policies: BackendPolicies): CompiledBackend {
  const retryBudget = policies.retryBudgetFor(backend.source);
  const override = edge.healthChecks?.overrides[`${backend.source.namespace}/${backend.source.name}`] ?? {};
  return {
    ...backend,
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
  return Object.fromEntries(
    registry
      .entries()
      .filter(([id]) => used.has(id))
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([id, backend]) => [id, withPolicies(backend, edge, policies)]),
  );
}

function localityPolicy(edge: EdgeConfig): LocalityPolicy {
  const clusters: LocalityPolicy["clusters"] = {};
  for (const c of edge.clusters) if (c.locality) clusters[c.name] = c.locality;
  return { minHealthyEndpoints: edge.locality?.minHealthyEndpoints ?? 1, clusters };
}

/** What the table carries of the edge settings: locality, egress rules, the health-check limit (each only when set). */
export function emitEdgeSettings(edge: EdgeConfig): Pick<RouteTable, "locality" | "egress" | "healthChecks"> {
  const { allowedHostnames, allowLocalhost } = edge.egress;
  return {
    ...(edge.locality ? { locality: localityPolicy(edge) } : {}),
    ...(allowedHostnames || allowLocalhost
      ? { egress: { ...(allowedHostnames ? { allowedHostnames } : {}), ...(allowLocalhost ? { allowLocalhost: true as const } : {}) } }
      : {}),
    ...(edge.healthChecks ? { healthChecks: { maxEndpointsPerRun: edge.healthChecks.maxEndpointsPerRun } } : {}),
  };
}
