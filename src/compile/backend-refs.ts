/**
 * @module Resolves a rule's backendRefs to table backends. An unresolvable ref keeps its weight and
 * answers 500 at the edge; the route gets ResolvedRefs=False with the Gateway API reason.
 */
import { isJsonObject, type Manifest } from "../gateway-api/manifest";
import type { CompiledBackend, CompiledBackendRef } from "../table/route-table";
import type { EdgeConfig } from "./edge-config";
import { compileFilters } from "./filters";
import type { FieldProblem, MatchDraft } from "./route-matches";
import { isReferencePermitted } from "./reference-grant";
import type { ResourceIndex } from "./resource-index";
import { resolveServiceEndpoints, servicePorts } from "./service-endpoints";

export const GATEWAY_GROUP = "gateway.networking.k8s.io";

/** What resolving one rule's refs produced. */
export interface ResolvedBackendRefs {
  refs: CompiledBackendRef[];
  /** ResolvedRefs problems (the route stays accepted). */
  unresolved: FieldProblem[];
  /** A problem that rejects the whole route (a malformed ref or filter). */
  rejected?: FieldProblem;
}

export interface BackendContext {
  index: ResourceIndex;
  edge: EdgeConfig;
  /** Backends found so far, by id; shared by every rule so each backend is compiled once. */
  backends: Map<string, CompiledBackend>;
}

function resolveService(
  ctx: BackendContext,
  route: Manifest,
  ref: Record<string, unknown>,
  at: string,
): { backend: string } | FieldProblem {
  const namespace = typeof ref.namespace === "string" ? ref.namespace : route.metadata.namespace;
  const name = ref.name as string;
  const permitted = isReferencePermitted(ctx.index, {
    cluster: route.cluster,
    from: { group: GATEWAY_GROUP, kind: "HTTPRoute", namespace: route.metadata.namespace },
    to: { group: "", kind: "Service", namespace, name },
  });
  if (!permitted) {
    return {
      field: `${at}.namespace`,
      reason: "RefNotPermitted",
      message: `no ReferenceGrant in namespace ${namespace} allows this route to use Service ${name}`,
    };
  }
  if (typeof ref.port !== "number")
    return { field: `${at}.port`, reason: "UnsupportedValue", message: `port is required for Service ${namespace}/${name}` };
  const service = ctx.index.get(route.cluster, "Service", namespace, name);
  if (!service)
    return {
      field: `${at}.name`,
      reason: "BackendNotFound",
      message: `Service ${namespace}/${name} not found in cluster ${route.cluster}`,
    };
  const port = servicePorts(service).find((p) => p.port === ref.port);
  if (!port) return { field: `${at}.port`, reason: "BackendNotFound", message: `Service ${namespace}/${name} has no port ${ref.port}` };
  const id = `Service/${route.cluster}/${namespace}/${name}:${port.port}`;
  if (!ctx.backends.has(id)) {
    const cluster = ctx.edge.clusters.find((c) => c.name === route.cluster);
    if (!cluster) return { field: at, reason: "BackendNotFound", message: `cluster ${route.cluster} is not in the edge settings` };
    ctx.backends.set(id, {
      id,
      source: { cluster: route.cluster, kind: "Service", namespace, name },
      port: port.port,
      endpoints: resolveServiceEndpoints(ctx.index, cluster, service, port),
    });
  }
  return { backend: id };
}

const isProblem = (v: unknown): v is FieldProblem => isJsonObject(v) && typeof v.reason === "string" && typeof v.field === "string";

/** Resolves `rules[i].backendRefs`. */
export function resolveBackendRefs(
  ctx: BackendContext,
  route: Manifest,
  raw: unknown,
  at: string,
  matches: MatchDraft[],
): ResolvedBackendRefs {
  const result: ResolvedBackendRefs = { refs: [], unresolved: [] };
  if (raw === undefined) return result;
  if (!Array.isArray(raw) || raw.length > 16) {
    result.rejected = { field: at, reason: "UnsupportedValue", message: "backendRefs must be a list of at most 16" };
    return result;
  }
  for (const [i, ref] of raw.entries()) {
    const here = `${at}[${i}]`;
    if (!isJsonObject(ref) || typeof ref.name !== "string" || ref.name === "") {
      result.rejected = { field: here, reason: "UnsupportedValue", message: "backendRef needs a name" };
      return result;
    }
    const weight = ref.weight ?? 1;
    if (typeof weight !== "number" || !Number.isInteger(weight) || weight < 0 || weight > 1_000_000) {
      result.rejected = { field: `${here}.weight`, reason: "UnsupportedValue", message: "weight must be an integer 0-1000000" };
      return result;
    }
    const filters = compileFilters(ref.filters, `${here}.filters`, matches);
    if (isProblem(filters)) {
      result.rejected = filters;
      return result;
    }
    const group = typeof ref.group === "string" ? ref.group : "";
    const kind = typeof ref.kind === "string" ? ref.kind : "Service";
    const resolved: { backend: string } | FieldProblem =
      group === "" && kind === "Service"
        ? resolveService(ctx, route, ref, here)
        : { field: `${here}.kind`, reason: "InvalidKind", message: `backendRef kind ${group ? `${group}/` : ""}${kind} is not supported` };
    if (isProblem(resolved)) {
      result.unresolved.push(resolved);
      result.refs.push({ weight, invalid: { reason: resolved.reason, message: resolved.message }, filters });
    } else {
      result.refs.push({ weight, backend: resolved.backend, filters });
    }
  }
  return result;
}
