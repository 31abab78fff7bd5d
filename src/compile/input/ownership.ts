/**
 * @module Which objects belong to another Gateway API controller, so kedge leaves them alone: it neither
 * checks them against its schemas (a cluster's CRDs may be newer than kedge's release, and another
 * implementation's objects are that implementation's business), nor reports on them, nor writes their
 * status. Another controller's objects are: a Gateway of another GatewayClass; a ListenerSet attached to
 * such a Gateway; a route all of whose parentRefs name such Gateways or ListenerSets, or Services (a
 * mesh's routes). A parentRef naming nothing that exists keeps the route kedge's, so that a mistyped name
 * is still reported.
 */
import { isJsonObject, type Manifest } from "../../gateway-api/manifest";

const ROUTE_KINDS = new Set(["HTTPRoute", "GRPCRoute", "TLSRoute", "TCPRoute", "UDPRoute"]);
const LISTENER_SET_KINDS = new Set(["ListenerSet", "XListenerSet"]);

const text = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);
const spec = (m: Manifest) => (isJsonObject(m.raw.spec) ? m.raw.spec : {});
const key = (cluster: string, kind: string, namespace: string, name: string) => `${cluster}/${kind}/${namespace}/${name}`;

/** The objects of `manifests` that another controller owns (those kedge reads, before any check). */
export function othersObjects(manifests: Manifest[], gatewayClassName: string): Set<Manifest> {
  const others = new Set<Manifest>();
  const ours = new Set<string>();
  const theirs = new Set<string>();
  for (const m of manifests) {
    if (m.kind !== "Gateway") continue;
    const k = key(m.cluster, "Gateway", m.metadata.namespace, m.metadata.name);
    if (text(spec(m).gatewayClassName) === gatewayClassName) ours.add(k);
    else {
      theirs.add(k);
      others.add(m);
    }
  }
  for (const m of manifests) {
    if (!LISTENER_SET_KINDS.has(m.kind)) continue;
    const parent = isJsonObject(spec(m).parentRef) ? (spec(m).parentRef as Record<string, unknown>) : {};
    const gateway = key(m.cluster, "Gateway", text(parent.namespace) ?? m.metadata.namespace, text(parent.name) ?? "");
    const k = key(m.cluster, "ListenerSet", m.metadata.namespace, m.metadata.name);
    if (theirs.has(gateway)) {
      theirs.add(k);
      others.add(m);
    } else ours.add(k);
  }
  for (const m of manifests) {
    if (!ROUTE_KINDS.has(m.kind)) continue;
    const parents = Array.isArray(spec(m).parentRefs) ? (spec(m).parentRefs as unknown[]).filter(isJsonObject) : [];
    const othersParent = (p: Record<string, unknown>) => {
      const kind = text(p.kind) ?? "Gateway";
      if (kind === "Service") return true;
      const target = key(
        m.cluster,
        LISTENER_SET_KINDS.has(kind) ? "ListenerSet" : kind,
        text(p.namespace) ?? m.metadata.namespace,
        text(p.name) ?? "",
      );
      return theirs.has(target) && !ours.has(target);
    };
    if (parents.length > 0 && parents.every(othersParent)) others.add(m);
  }
  return others;
}

/** Whether a route's parentRef names a Gateway or ListenerSet of another controller (its status entry is not kedge's). */
export function othersParent(route: Manifest, parentRef: Record<string, unknown>, others: Set<Manifest>, manifests: Manifest[]): boolean {
  const kind = text(parentRef.kind) ?? "Gateway";
  if (kind === "Service") return true;
  const namespace = text(parentRef.namespace) ?? route.metadata.namespace;
  const name = text(parentRef.name);
  return manifests.some(
    (m) =>
      others.has(m) &&
      m.cluster === route.cluster &&
      (m.kind === kind || (LISTENER_SET_KINDS.has(m.kind) && LISTENER_SET_KINDS.has(kind))) &&
      m.metadata.namespace === namespace &&
      m.metadata.name === name,
  );
}
