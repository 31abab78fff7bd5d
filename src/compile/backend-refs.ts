/**
 * @module Resolves a rule's backendRefs to table backends, by kind: Service (this cluster only),
 * ServiceImport (every cluster that exports the Service), CompositeBackend (the union of every
 * cluster's same-named CompositeBackend), XBackend (an external hostname). An unresolvable ref keeps
 * its weight and answers 500 at the edge; the route gets ResolvedRefs=False with the Gateway API reason.
 */
import { isJsonObject, type Manifest } from "../gateway-api/manifest";
import type { CompiledBackend, CompiledBackendRef, CompiledEndpoint } from "../table/route-table";
import { GATEWAY_GROUP, MCS_GROUP, X_GROUP } from "./api-groups";
import type { CompositeBackends } from "./composite-backends";
import type { ClusterSettings, EdgeConfig } from "./edge-config";
import { compileFilters, type FilterContext } from "./filters";
import type { FieldProblem, MatchDraft } from "./route-matches";
import { isReferencePermitted } from "./reference-grant";
import type { ResourceIndex } from "./resource-index";
import type { SessionPolicies } from "./session-policies";
import { resolveServiceEndpoints, type ServicePort, servicePorts } from "./service-endpoints";
import { externalEndpoint, type XBackends } from "./xbackends";

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
  xbackends: XBackends;
  composites: CompositeBackends;
  sessions: SessionPolicies;
  /** Backends found so far, by id; shared by every rule so each backend is compiled once. */
  backends: Map<string, CompiledBackend>;
}

/** One backendRef after the checks every kind shares. */
interface Target {
  route: Manifest;
  group: string;
  kind: string;
  namespace: string;
  name: string;
  port?: number;
  at: string;
}

type Resolution = { backend: string } | FieldProblem;

const isProblem = (v: unknown): v is FieldProblem => isJsonObject(v) && typeof v.reason === "string" && typeof v.field === "string";

const notFound = (t: Target, message: string): FieldProblem => ({ field: `${t.at}.name`, reason: "BackendNotFound", message });

/** The Service port a ref's port names; with no port, the Service's only port. */
function pickServicePort(service: Manifest, port: number | undefined): ServicePort | undefined {
  const ports = servicePorts(service);
  return port === undefined ? (ports.length === 1 ? ports[0] : undefined) : ports.find((p) => p.port === port);
}

/** Stores a backend once; later rules naming the same id reuse it. */
function register(ctx: BackendContext, backend: () => CompiledBackend, id: string): Resolution {
  if (!ctx.backends.has(id)) {
    const built = backend();
    const byId = new Map(built.endpoints.map((e) => [e.id, e]));
    ctx.backends.set(id, { ...built, endpoints: [...byId.values()] });
  }
  return { backend: id };
}

function clusterOf(ctx: BackendContext, name: string): ClusterSettings | undefined {
  return ctx.edge.clusters.find((c) => c.name === name);
}

/** kind Service: endpoints of the route's own cluster only (GEP-1748: Service means cluster-local). */
function resolveService(ctx: BackendContext, t: Target): Resolution {
  if (t.port === undefined)
    return { field: `${t.at}.port`, reason: "UnsupportedValue", message: `port is required for Service ${t.namespace}/${t.name}` };
  const cluster = t.route.cluster;
  const service = ctx.index.get(cluster, "Service", t.namespace, t.name);
  if (!service) return notFound(t, `Service ${t.namespace}/${t.name} not found in cluster ${cluster}`);
  const port = pickServicePort(service, t.port);
  if (!port) return { field: `${t.at}.port`, reason: "BackendNotFound", message: `Service ${t.namespace}/${t.name} has no port ${t.port}` };
  const settings = clusterOf(ctx, cluster);
  if (!settings) return notFound(t, `cluster ${cluster} is not in the edge settings`);
  const id = `Service/${cluster}/${t.namespace}/${t.name}:${port.port}`;
  return register(
    ctx,
    () => ({
      id,
      source: { cluster, kind: "Service", namespace: t.namespace, name: t.name },
      port: port.port,
      endpoints: resolveServiceEndpoints(ctx.index, settings, service, port),
    }),
    id,
  );
}

/** kind ServiceImport: the union of every cluster that exports the Service (ServiceExport + Service). */
function resolveServiceImport(ctx: BackendContext, t: Target): Resolution {
  if (t.port === undefined) {
    return { field: `${t.at}.port`, reason: "UnsupportedValue", message: `port is required for ServiceImport ${t.namespace}/${t.name}` };
  }
  const exporters = ctx.edge.clusters.flatMap((cluster) => {
    if (!ctx.index.get(cluster.name, "ServiceExport", t.namespace, t.name)) return [];
    const service = ctx.index.get(cluster.name, "Service", t.namespace, t.name);
    const port = service && pickServicePort(service, t.port);
    return service && port ? [{ cluster, service, port }] : [];
  });
  if (exporters.length === 0) {
    return notFound(t, `no cluster exports Service ${t.namespace}/${t.name} with port ${t.port} (a ServiceExport next to the Service)`);
  }
  const id = `ServiceImport/${t.namespace}/${t.name}:${t.port}`;
  return register(
    ctx,
    () => ({
      id,
      source: { cluster: exporters.map((e) => e.cluster.name).join(","), kind: "ServiceImport", namespace: t.namespace, name: t.name },
      port: t.port!,
      endpoints: exporters.flatMap((e) => resolveServiceEndpoints(ctx.index, e.cluster, e.service, e.port)),
    }),
    id,
  );
}

/** kind CompositeBackend: the union of the targets of every accepted same-named CompositeBackend. */
function resolveComposite(ctx: BackendContext, t: Target): Resolution {
  const members = ctx.composites.membersOf(t.namespace, t.name);
  if (members.length === 0) {
    return notFound(
      t,
      ctx.composites.isDeclared(t.namespace, t.name)
        ? `CompositeBackend ${t.namespace}/${t.name} is not accepted with a resolvable target in any cluster`
        : `CompositeBackend ${t.namespace}/${t.name} not found in any cluster`,
    );
  }
  const endpoints: CompiledEndpoint[] = [];
  let sources = 0;
  for (const member of members) {
    const cluster = clusterOf(ctx, member.cluster);
    if (!cluster) continue;
    for (const target of member.targets) {
      if (target.kind === "XBackend") {
        const xb = ctx.xbackends.get(member.cluster, t.namespace, target.name);
        if (xb?.ok) {
          endpoints.push(externalEndpoint(cluster, xb.target));
          sources++;
        }
        continue;
      }
      const service = ctx.index.get(member.cluster, "Service", t.namespace, target.name);
      const port = service && pickServicePort(service, t.port);
      if (!service || !port) continue;
      endpoints.push(...resolveServiceEndpoints(ctx.index, cluster, service, port));
      sources++;
    }
  }
  if (sources === 0) {
    return {
      field: `${t.at}.port`,
      reason: "BackendNotFound",
      message: `no target of CompositeBackend ${t.namespace}/${t.name} has ${t.port === undefined ? "a single port (set port)" : `port ${t.port}`}`,
    };
  }
  const id = `CompositeBackend/${t.namespace}/${t.name}${t.port === undefined ? "" : `:${t.port}`}`;
  return register(
    ctx,
    () => ({
      id,
      source: { cluster: members.map((m) => m.cluster).join(","), kind: "CompositeBackend", namespace: t.namespace, name: t.name },
      port: t.port ?? 0,
      endpoints,
    }),
    id,
  );
}

/** kind XBackend: one external hostname; the XBackend must live in the route's namespace and cluster. */
function resolveXBackend(ctx: BackendContext, t: Target): Resolution {
  if (t.namespace !== t.route.metadata.namespace) {
    return { field: `${t.at}.namespace`, reason: "RefNotPermitted", message: "an XBackend must be in the same namespace as the route" };
  }
  const cluster = t.route.cluster;
  const xb = ctx.xbackends.get(cluster, t.namespace, t.name);
  if (!xb) return notFound(t, `XBackend ${t.namespace}/${t.name} not found in cluster ${cluster}`);
  if (!xb.ok) {
    const reason = xb.problem.reason === "UnsupportedProtocol" ? "UnsupportedProtocol" : "BackendNotFound";
    return { field: t.at, reason, message: `XBackend ${t.namespace}/${t.name} is not accepted: ${xb.problem.message}` };
  }
  const id = `XBackend/${cluster}/${t.namespace}/${t.name}`;
  return register(
    ctx,
    () => ({
      id,
      source: { cluster, kind: "XBackend", namespace: t.namespace, name: t.name },
      port: xb.target.port,
      // A lone external endpoint takes all of its backend's traffic, whatever its cluster's weight.
      endpoints: [externalEndpoint({ name: cluster, weight: 1 }, xb.target)],
    }),
    id,
  );
}

const RESOLVERS: Record<string, (ctx: BackendContext, t: Target) => Resolution> = {
  "/Service": resolveService,
  [`${MCS_GROUP}/ServiceImport`]: resolveServiceImport,
  [`${GATEWAY_GROUP}/CompositeBackend`]: resolveComposite,
  [`${X_GROUP}/CompositeBackend`]: resolveComposite,
  [`${X_GROUP}/XBackend`]: resolveXBackend,
};

function resolveRef(ctx: BackendContext, route: Manifest, ref: Record<string, unknown>, at: string): Resolution {
  const group = typeof ref.group === "string" ? ref.group : "";
  const kind = typeof ref.kind === "string" ? ref.kind : "Service";
  const resolver = RESOLVERS[`${group}/${kind}`];
  if (!resolver) {
    const supported = "Service, multicluster.x-k8s.io/ServiceImport, CompositeBackend, gateway.networking.x-k8s.io/XBackend";
    return {
      field: `${at}.kind`,
      reason: "InvalidKind",
      message: `backendRef kind ${group ? `${group}/` : ""}${kind} is not supported (${supported})`,
    };
  }
  const namespace = typeof ref.namespace === "string" ? ref.namespace : route.metadata.namespace;
  const name = ref.name as string;
  if (ref.port !== undefined && !(typeof ref.port === "number" && Number.isInteger(ref.port) && ref.port >= 1 && ref.port <= 65535)) {
    return { field: `${at}.port`, reason: "UnsupportedValue", message: "port must be 1-65535" };
  }
  const grant = { cluster: route.cluster, from: { group: GATEWAY_GROUP, kind: "HTTPRoute", namespace: route.metadata.namespace } };
  if (kind !== "XBackend" && !isReferencePermitted(ctx.index, { ...grant, to: { group, kind, namespace, name } })) {
    return {
      field: `${at}.namespace`,
      reason: "RefNotPermitted",
      message: `no ReferenceGrant in namespace ${namespace} allows this route to use ${kind} ${name}`,
    };
  }
  return resolver(ctx, { route, group, kind, namespace, name, port: ref.port as number | undefined, at });
}

/** The context a rule's (or a backendRef's) filters compile in: mirrors resolve like backendRefs. */
export function filterContext(
  ctx: BackendContext,
  route: Manifest,
  matches: MatchDraft[],
  unresolved: FieldProblem[],
  level: FilterContext["level"],
): FilterContext {
  return { matches, unresolved, level, resolveMirror: (ref, at) => resolveRef(ctx, route, ref, at) };
}

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
    const filters = compileFilters(ref.filters, `${here}.filters`, filterContext(ctx, route, matches, result.unresolved, "backendRef"));
    if (isProblem(filters)) {
      result.rejected = filters;
      return result;
    }
    const resolved = resolveRef(ctx, route, ref, here);
    if (isProblem(resolved)) {
      result.unresolved.push(resolved);
      result.refs.push({ weight, invalid: { reason: resolved.reason, message: resolved.message }, filters });
    } else {
      result.refs.push({ weight, backend: resolved.backend, filters });
    }
  }
  return result;
}
