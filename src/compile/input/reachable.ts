/**
 * @module Cost follows what is routed. A real cluster's dump is mostly Services and EndpointSlices that nothing
 * at the edge can reach; they are left out right after reading, before the schema stage, the index and every
 * stage after, so a sync of a cluster of thousands of Services costs what its routed ones cost. A Service is
 * reachable when a route (its backendRefs and mirrors), a CompositeBackend, a ServiceExport or a policy names it;
 * an EndpointSlice when its Service is (one without a Service label is kept, to be told as dropped). Names are
 * matched by namespace/name across clusters: a route's copies resolve in every cluster, so this is a superset.
 * Objects are read loosely here: nothing has been checked yet, and a malformed one is simply not a reference.
 */
import { apiGroup, isJsonObject, type Manifest } from "../../gateway-api/manifest";
import { SERVICE_NAME_LABEL } from "./resource-index";

const CORE_GROUPS = new Set(["", "core", "v1"]);
const ROUTE_KINDS = new Set(["HTTPRoute", "GRPCRoute", "TLSRoute", "TCPRoute", "UDPRoute"]);

const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const text = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);

/** A reference's `namespace/name` when it names a core Service (kind and group as Gateway API defaults them). */
function serviceRef(ref: unknown, namespace: string, defaultKind: string | undefined): string | undefined {
  if (!isJsonObject(ref)) return undefined;
  const kind = text(ref.kind) ?? defaultKind;
  const group = text(ref.group) ?? "";
  const name = text(ref.name);
  return kind === "Service" && CORE_GROUPS.has(group) && name ? `${text(ref.namespace) ?? namespace}/${name}` : undefined;
}

/** The Services one object names (as `namespace/name`). */
function servicesNamedBy(m: Manifest, add: (key: string | undefined) => void): void {
  const spec = isJsonObject(m.raw.spec) ? m.raw.spec : {};
  const ns = m.metadata.namespace;
  const mirrors = (filters: unknown) => {
    for (const f of list(filters))
      if (isJsonObject(f) && isJsonObject(f.requestMirror)) add(serviceRef(f.requestMirror.backendRef, ns, "Service"));
  };
  if (ROUTE_KINDS.has(m.kind)) {
    for (const rule of list(spec.rules)) {
      if (!isJsonObject(rule)) continue;
      mirrors(rule.filters);
      for (const ref of list(rule.backendRefs)) {
        add(serviceRef(ref, ns, "Service"));
        if (isJsonObject(ref)) mirrors(ref.filters);
      }
    }
  } else if (m.kind === "ServiceExport") {
    add(`${ns}/${m.metadata.name}`);
  } else {
    // A CompositeBackend's targets, and a policy's (GEP-713): what they name must be there for them to be judged
    // (`targetRef` too, however the object spells it: it is checked later, with what it names).
    for (const ref of [...list(spec.targetRefs), ...(Array.isArray(spec.targetRef) ? spec.targetRef : [spec.targetRef])])
      add(serviceRef(ref, ns, undefined));
  }
}

const isCoreService = (m: Manifest) => m.kind === "Service" && apiGroup(m.apiVersion) === "";
const isEndpointSlice = (m: Manifest) => m.kind === "EndpointSlice" && apiGroup(m.apiVersion) === "discovery.k8s.io";

/**
 * The `namespace/name` of every Service something in `manifests` names: those whose objects (the Service and its
 * EndpointSlices) can change the table. `sync --watch` skips a cycle whose changes all concern other Services.
 */
export function routedServices(manifests: Manifest[]): Set<string> {
  const named = new Set<string>();
  const add = (key: string | undefined) => {
    if (key) named.add(key);
  };
  for (const m of manifests) if (!isCoreService(m) && !isEndpointSlice(m)) servicesNamedBy(m, add);
  return named;
}

/** `manifests` split: those something can reach (in the order they came), and the Services and EndpointSlices nothing can. */
export function reachableObjects(manifests: Manifest[]): { reached: Manifest[]; unreached: Manifest[] } {
  const named = routedServices(manifests);
  const reachable = (m: Manifest) => {
    if (isCoreService(m)) return named.has(`${m.metadata.namespace}/${m.metadata.name}`);
    if (!isEndpointSlice(m)) return true;
    const service = m.metadata.labels[SERVICE_NAME_LABEL];
    return service === undefined || named.has(`${m.metadata.namespace}/${service}`);
  };
  const reached: Manifest[] = [];
  const unreached: Manifest[] = [];
  for (const m of manifests) (reachable(m) ? reached : unreached).push(m);
  return { reached, unreached };
}
