/**
 * @module Resolves one backendRef's target to a table backend, by kind: Service (the route's own cluster;
 * for a route applied identically to several clusters, each of those clusters' Service), ServiceImport
 * (every cluster that exports the Service), CompositeBackend (the union of every cluster's same-named
 * CompositeBackend), XBackend (an external hostname), after the checks every kind shares (its kind, a
 * ReferenceGrant for another namespace). Each backend is built once (the registry).
 */
import { REASON, unsupported } from "../status/conditions";
import type { Manifest } from "../../gateway-api/manifest";
import type { CompiledBackend, CompiledEndpoint } from "../../table/route-table";
import { GATEWAY_GROUP, MCS_GROUP, X_GROUP } from "../input/api-groups";
import type { ClusterSettings, EdgeConfig } from "../input/edge-config";
import { grantHint, isReferencePermitted } from "../input/reference-grant";
import type { ResourceIndex } from "../input/resource-index";
import type { BackendObjectReference } from "../input/typed-objects";
import { type FieldProblem, isProblem } from "../status/problems";
import type { BackendPolicies } from "./backend-policies";
import type { BackendRegistry } from "./registry";
import type { BackendTlsPolicies } from "./backend-tls";
import type { CompositeBackends } from "./composite-backends";
import { type DroppedSlice, resolveServiceEndpoints, servicePorts } from "./service-endpoints";
import { isRefusal, type ServicePort, serviceTransport } from "./service-transport";
import { externalEndpoint, type XBackends } from "./xbackends";
import { suggestion } from "../../table/did-you-mean";

/**
 * The route whose refs are resolved, and the clusters it stands for: its own, or every cluster holding an
 * identical copy (namespace sameness). Cluster-local kinds (Service, XBackend) resolve in each of them.
 */
export interface RouteScope {
  route: Manifest;
  clusters: string[];
}

export interface BackendContext {
  index: ResourceIndex;
  edge: EdgeConfig;
  backendTls: BackendTlsPolicies;
  xbackends: XBackends;
  composites: CompositeBackends;
  policies: BackendPolicies;
  /** Backends found so far, by id; shared by every rule so each backend is compiled once. */
  backends: BackendRegistry;
  /** EndpointSlices of resolved Services the edge cannot use (each reported once, report/dropped-endpoints.ts). */
  droppedSlices: DroppedSlice[];
  /** Each Service (or ServiceImport) backend's endpoints, or why the edge cannot call it, by backend id. */
  endpointsById: Map<string, CompiledEndpoint[] | FieldProblem>;
  /** Service refs resolved in every cluster so far, by the clusters, namespace, name and port they name (resolveService). */
  serviceRefs: Map<string, Resolution>;
}

/** One backendRef after the checks every kind shares. */
interface Target {
  route: Manifest;
  /** The route's clusters in which the reference is permitted (ReferenceGrant). */
  clusters: string[];
  group: string;
  kind: string;
  namespace: string;
  name: string;
  port?: number;
  at: string;
}

/** A route cluster a resolved ref draws nothing from, and why. */
export interface Missing {
  cluster: string;
  why: string;
}

/**
 * A resolved ref, the clusters it could not be resolved in, and those it draws from (when they are not
 * the route's clusters, as for a CompositeBackend).
 */
export type Resolution = { backend: string; missing?: Missing[]; from?: string[] } | FieldProblem;

const notFound = (t: Target, message: string): FieldProblem => ({ field: `${t.at}.name`, reason: REASON.BackendNotFound, message });

/** The objects of `kind` in the target's namespace of its clusters, for "did you mean". */
/** "Service shop/web not found in cluster east (did you mean …? Services in namespace shop: …)": the names that exist in `clusters`. */
export function notFoundText(
  ctx: BackendContext,
  kind: string,
  namespace: string,
  name: string,
  clusters: string[],
  where: string,
): string {
  return `${kind} ${namespace}/${name} not found in ${where}${suggestion(name, ctx.index.namesIn(clusters, kind, namespace), `${kind}s in namespace ${namespace}`)}`;
}

/** A Service's ports as a message lists them: "80 (http), 8080 (admin)". */
const portList = (service: Manifest): string =>
  servicePorts(service)
    .map((p) => (p.name ? `${p.port} (${p.name})` : `${p.port}`))
    .join(", ") || "none";

/** The Service port a ref's port names; with no port, the Service's only port. */
function pickServicePort(service: Manifest, port: number | undefined): ServicePort | undefined {
  const ports = servicePorts(service);
  return port === undefined ? (ports.length === 1 ? ports[0] : undefined) : ports.find((p) => p.port === port);
}

/** Endpoints of one Service port in one cluster, with the transport the edge calls them with. */
interface ServicePart {
  settings: ClusterSettings;
  service: Manifest;
  port: ServicePort;
}

/**
 * The endpoints of every part, or the first part's reason the edge cannot call it (appProtocol,
 * BackendTLSPolicy): a ref to a Service the edge cannot speak to as its owner asks is invalid as a whole.
 */
function endpointsOfParts(ctx: BackendContext, parts: ServicePart[], at: string): CompiledEndpoint[] | FieldProblem {
  const endpoints: CompiledEndpoint[] = [];
  for (const { settings, service, port } of parts) {
    const transport = serviceTransport(ctx.backendTls, settings, service.metadata, port);
    if (isRefusal(transport)) return { field: at, ...transport };
    endpoints.push(...resolveServiceEndpoints(ctx.index, settings, transport, service, port, ctx.droppedSlices));
  }
  return endpoints;
}

/**
 * The endpoints of backend `id`, resolved once however many refs name it (a hundred thousand routes may share a
 * few Services); a refusal is remembered too, and told at each ref's own field.
 */
function endpointsOnce(
  ctx: BackendContext,
  id: string,
  at: string,
  resolve: () => CompiledEndpoint[] | FieldProblem,
): CompiledEndpoint[] | FieldProblem {
  let known = ctx.endpointsById.get(id);
  if (!known) {
    known = resolve();
    ctx.endpointsById.set(id, known);
  }
  return isProblem(known) ? { ...known, field: at } : known;
}

/**
 * Stores a backend once; later rules naming the same id reuse it. `target` is what session pins name it by:
 * the backendRef's target without the clusters it resolved in (the id itself when it names none).
 */
function register(ctx: BackendContext, backend: () => Omit<CompiledBackend, "target">, id: string, target = id): Resolution {
  ctx.backends.register(id, target, backend);
  return { backend: id };
}

function clusterOf(ctx: BackendContext, name: string): ClusterSettings | undefined {
  return ctx.edge.clusters.find((c) => c.name === name);
}

/** The route clusters a resolved backend draws from, in the id: one cluster as is, several joined by commas. */
const clusterList = (clusters: string[]) => clusters.join(",");

/**
 * kind Service: endpoints of the route's own cluster only (GEP-1748: Service means cluster-local). A route
 * that stands for identical copies in several clusters resolves it in each; a cluster without the Service
 * (or the port) contributes nothing and is named.
 */
function resolveService(ctx: BackendContext, t: Target): Resolution {
  if (t.port === undefined) return unsupported(`${t.at}.port`, `port is required for Service ${t.namespace}/${t.name}`);
  // A hundred thousand routes may name a few Services: one that resolves in every cluster is resolved once per
  // clusters, namespace, name and port. A problem names the ref's own field, and what a cluster lacks may say
  // which EndpointSlices were left out so far: those are found again for each ref.
  const key = [clusterList(t.clusters), t.namespace, t.name, t.port].join("\u0000");
  const known = ctx.serviceRefs.get(key);
  if (known) return known;
  const resolution = resolveServiceOnce(ctx, t);
  if (!isProblem(resolution) && !resolution.missing) ctx.serviceRefs.set(key, resolution);
  return resolution;
}

function resolveServiceOnce(ctx: BackendContext, t: Target): Resolution {
  const found = t.clusters.map((cluster) => {
    const service = ctx.index.get(cluster, "Service", t.namespace, t.name);
    const port = service && pickServicePort(service, t.port);
    const settings = clusterOf(ctx, cluster);
    return { cluster, service, port, settings };
  });
  const contributing = found.filter((f) => f.service && f.port && f.settings);
  const missing = found.filter((f) => !contributing.includes(f));
  if (contributing.length === 0) {
    const first = found[0]!;
    const where = t.clusters.length > 1 ? `any of clusters ${t.clusters.join(", ")}` : `cluster ${first.cluster}`;
    const service = found.find((f) => f.service)?.service;
    if (service)
      return {
        field: `${t.at}.port`,
        reason: REASON.BackendNotFound,
        message: `Service ${t.namespace}/${t.name} has no port ${t.port} in ${where} (its ports: ${portList(service)})`,
      };
    return notFound(t, notFoundText(ctx, "Service", t.namespace, t.name, t.clusters, where));
  }
  const port = contributing[0]!.port!.port;
  const clusters = contributing.map((f) => f.cluster);
  const id = `Service/${clusterList(clusters)}/${t.namespace}/${t.name}:${port}`;
  const endpoints = endpointsOnce(ctx, id, t.at, () =>
    endpointsOfParts(
      ctx,
      contributing.map((f) => ({ settings: f.settings!, service: f.service!, port: f.port! })),
      t.at,
    ),
  );
  if (isProblem(endpoints)) return endpoints;
  const resolved = register(
    ctx,
    () => ({ id, source: { cluster: clusterList(clusters), kind: "Service", namespace: t.namespace, name: t.name }, port, endpoints }),
    id,
    `Service/${t.namespace}/${t.name}:${port}`,
  );
  const why = (f: (typeof found)[number]) =>
    !f.service
      ? `Service ${t.namespace}/${t.name} not found`
      : !f.port
        ? `Service ${t.namespace}/${t.name} has no port ${t.port} (its ports: ${portList(f.service)})`
        : "cluster not in the edge settings";
  // A cluster whose Service has no endpoint the edge can use adds no capacity either: said, not left silent.
  // (When no cluster has one, the backend's own NoReadyEndpoints warning says so.)
  const empty = clusters
    .filter((c) => endpoints.length > 0 && !endpoints.some((e) => e.cluster === c))
    .map((cluster) => ({
      cluster,
      why: `Service ${t.namespace}/${t.name} has no endpoints the edge can use${emptyCause(ctx, cluster, t)}`,
    }));
  const gaps = [...missing.map((f) => ({ cluster: f.cluster, why: why(f) })), ...empty];
  return gaps.length > 0 ? { ...resolved, missing: gaps } : resolved;
}

/** Why a Service of a cluster yields no endpoint: its EndpointSlices were left out, or it has none. */
function emptyCause(ctx: BackendContext, cluster: string, t: Target): string {
  const slices = ctx.index.endpointSlicesOf(cluster, t.namespace, t.name);
  if (clusterOf(ctx, cluster)?.endpoints.from !== "EndpointSlice") return "";
  if (slices.length === 0) return " (no EndpointSlice names it)";
  return ctx.droppedSlices.some((d) => d.slice.cluster === cluster && slices.includes(d.slice))
    ? " (its EndpointSlices were left out: see EndpointsDropped)"
    : "";
}

/** kind ServiceImport: the union of every cluster that exports the Service (ServiceExport + Service). */
function resolveServiceImport(ctx: BackendContext, t: Target): Resolution {
  if (t.port === undefined) {
    return unsupported(`${t.at}.port`, `port is required for ServiceImport ${t.namespace}/${t.name}`);
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
  const endpoints = endpointsOnce(ctx, id, t.at, () =>
    endpointsOfParts(
      ctx,
      exporters.map((e) => ({ settings: e.cluster, service: e.service, port: e.port })),
      t.at,
    ),
  );
  if (isProblem(endpoints)) return endpoints;
  return register(
    ctx,
    () => ({
      id,
      source: { cluster: exporters.map((e) => e.cluster.name).join(","), kind: "ServiceImport", namespace: t.namespace, name: t.name },
      port: t.port!,
      endpoints,
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
        : `CompositeBackend ${t.namespace}/${t.name} not found in any cluster${suggestion(
            t.name,
            ctx.index
              .all("CompositeBackend")
              .filter((m) => m.metadata.namespace === t.namespace)
              .map((m) => m.metadata.name),
            `CompositeBackends in namespace ${t.namespace}`,
          )}`,
    );
  }
  const endpoints: CompiledEndpoint[] = [];
  const contributing = new Set<string>();
  const missing: Missing[] = [];
  for (const member of members) {
    const cluster = clusterOf(ctx, member.cluster);
    if (!cluster) continue;
    for (const target of member.targets) {
      if (target.kind === "XBackend") {
        const xb = ctx.xbackends.get(member.cluster, t.namespace, target.name);
        if (xb?.ok) {
          endpoints.push(externalEndpoint(cluster, xb.target));
          contributing.add(member.cluster);
        }
        continue;
      }
      const service = ctx.index.get(member.cluster, "Service", t.namespace, target.name);
      const port = service && pickServicePort(service, t.port);
      if (!service || !port) {
        const what = t.port === undefined ? "more than one port (set the backendRef's port)" : `no port ${t.port}`;
        missing.push({ cluster: member.cluster, why: `Service ${t.namespace}/${target.name} has ${what}` });
        continue;
      }
      const found = endpointsOfParts(ctx, [{ settings: cluster, service, port }], t.at);
      if (isProblem(found)) return found;
      endpoints.push(...found);
      contributing.add(member.cluster);
    }
  }
  if (contributing.size === 0) {
    return {
      field: `${t.at}.port`,
      reason: REASON.BackendNotFound,
      message: `no target of CompositeBackend ${t.namespace}/${t.name} has ${t.port === undefined ? "a single port (set port)" : `port ${t.port}`}`,
    };
  }
  const id = `CompositeBackend/${t.namespace}/${t.name}${t.port === undefined ? "" : `:${t.port}`}`;
  const resolved = register(
    ctx,
    () => ({
      id,
      source: { cluster: members.map((m) => m.cluster).join(","), kind: "CompositeBackend", namespace: t.namespace, name: t.name },
      port: t.port ?? 0,
      endpoints,
    }),
    id,
  );
  // A cluster whose target lacks the port is a member that adds nothing here: say which, and why.
  const gaps = missing.filter((m) => !contributing.has(m.cluster));
  return gaps.length > 0 ? { ...resolved, missing: gaps, from: [...contributing] } : resolved;
}

/**
 * kind XBackend: one external hostname; the XBackend must live in the route's namespace and cluster (for a
 * route in several clusters, each cluster's XBackend of that name; copies naming the same URL are one).
 */
function resolveXBackend(ctx: BackendContext, t: Target): Resolution {
  if (t.namespace !== t.route.metadata.namespace) {
    return {
      field: `${t.at}.namespace`,
      reason: REASON.RefNotPermitted,
      message: "an XBackend must be in the same namespace as the route",
    };
  }
  const found = t.clusters.map((cluster) => ({ cluster, xb: ctx.xbackends.get(cluster, t.namespace, t.name) }));
  const accepted = found.flatMap((f) => (f.xb?.ok ? [{ cluster: f.cluster, target: f.xb.target }] : []));
  if (accepted.length === 0) {
    const { cluster, xb } = found.find((f) => f.xb) ?? found[0]!;
    if (!xb || xb.ok) return notFound(t, notFoundText(ctx, "XBackend", t.namespace, t.name, t.clusters, `cluster ${cluster}`));
    const reason = xb.problem.reason === REASON.UnsupportedProtocol ? REASON.UnsupportedProtocol : REASON.BackendNotFound;
    return { field: t.at, reason, message: `XBackend ${t.namespace}/${t.name} is not accepted: ${xb.problem.message}` };
  }
  const clusters = accepted.map((a) => a.cluster);
  const id = `XBackend/${clusterList(clusters)}/${t.namespace}/${t.name}`;
  const endpoints = new Map<string, CompiledEndpoint>();
  for (const { cluster, target } of accepted) {
    // A lone external endpoint takes all of its backend's traffic, whatever its cluster's weight.
    const endpoint = externalEndpoint({ name: cluster, weight: 1 }, target);
    const url = `${endpoint.scheme}://${endpoint.host}:${endpoint.port}#${endpoint.mtlsBinding ?? ""}`;
    if (!endpoints.has(url)) endpoints.set(url, endpoint);
  }
  const resolved = register(
    ctx,
    () => ({
      id,
      source: { cluster: clusterList(clusters), kind: "XBackend", namespace: t.namespace, name: t.name },
      port: accepted[0]!.target.port,
      endpoints: [...endpoints.values()],
    }),
    id,
    `XBackend/${t.namespace}/${t.name}`,
  );
  const missing = found
    .filter((f) => !clusters.includes(f.cluster))
    .map((f) => ({
      cluster: f.cluster,
      why: f.xb ? `XBackend ${t.namespace}/${t.name} not accepted` : `XBackend ${t.namespace}/${t.name} not found`,
    }));
  return missing.length > 0 ? { ...resolved, missing } : resolved;
}

const RESOLVERS: Record<string, (ctx: BackendContext, t: Target) => Resolution> = {
  "/Service": resolveService,
  // The CompositeBackend proposal's own route names the kind without a group.
  "/CompositeBackend": resolveComposite,
  [`${MCS_GROUP}/ServiceImport`]: resolveServiceImport,
  [`${GATEWAY_GROUP}/CompositeBackend`]: resolveComposite,
  [`${X_GROUP}/CompositeBackend`]: resolveComposite,
  [`${X_GROUP}/XBackend`]: resolveXBackend,
};

/** Resolves the target `ref` names (at `at` in the route), for the route `scope` stands for. */
export function resolveTarget(ctx: BackendContext, scope: RouteScope, ref: BackendObjectReference, at: string): Resolution {
  const { route } = scope;
  const written = ref.group ?? "";
  const kind = ref.kind ?? "Service";
  const resolver = RESOLVERS[`${written}/${kind}`];
  // A CompositeBackend named without a group (as the proposal writes it) is the Gateway API group's.
  const group = kind === "CompositeBackend" && written === "" ? GATEWAY_GROUP : written;
  if (!resolver) {
    const supported = "Service, multicluster.x-k8s.io/ServiceImport, CompositeBackend, gateway.networking.x-k8s.io/XBackend";
    return {
      field: `${at}.kind`,
      reason: REASON.InvalidKind,
      message: `backendRef kind ${group ? `${group}/` : ""}${kind} is not supported (${supported})`,
    };
  }
  const namespace = ref.namespace ?? route.metadata.namespace;
  const { name } = ref;
  // A grant lives in the target's namespace of each cluster: a cluster without one contributes nothing.
  const from = { group: GATEWAY_GROUP, kind: "HTTPRoute", namespace: route.metadata.namespace };
  const permitted =
    kind === "XBackend"
      ? scope.clusters
      : scope.clusters.filter((cluster) => isReferencePermitted(ctx.index, { cluster, from, to: { group, kind, namespace, name } }));
  if (permitted.length === 0) {
    return {
      field: `${at}.namespace`,
      reason: REASON.RefNotPermitted,
      message: `no ReferenceGrant in namespace ${namespace} allows this route to use ${kind} ${name}${grantHint(ctx.index, {
        cluster: scope.clusters[0]!,
        from,
        to: { group, kind, namespace, name },
      })}`,
    };
  }
  const resolved = resolver(ctx, { route, clusters: permitted, group, kind, namespace, name, port: ref.port, at });
  const refused = scope.clusters
    .filter((c) => !permitted.includes(c))
    .map((cluster) => ({ cluster, why: `no ReferenceGrant in namespace ${namespace} allows it` }));
  if (isProblem(resolved) || refused.length === 0) return resolved;
  return { ...resolved, missing: [...(resolved.missing ?? []), ...refused] };
}
