/**
 * @module GRPCRoute, TLSRoute, TCPRoute and UDPRoute attached to a Gateway this edge serves, or to one of this
 * edge's ListenerSets (attached to its Gateway or not): never dropped silently. Each gets, per parent,
 * `Accepted=False NotAllowedByListeners` (the edge's listeners support HTTPRoute only) with the reason a
 * Worker cannot serve it, and an error in the report.
 */
import type { CompileReport } from "../status/compile-report";
import type { Manifest } from "../../gateway-api/manifest";
import { GATEWAY_GROUP } from "../input/api-groups";
import { fails, REASON } from "../status/conditions";
import type { EdgeListener } from "../gateways/listener";
import type { ResourceIndex } from "../input/resource-index";
import { isListenerSetRef } from "../gateways/listener-sets";
import { type RouteSpec, specOf } from "../input/typed-objects";

const UNSERVED_KINDS = ["GRPCRoute", "TLSRoute", "TCPRoute", "UDPRoute"] as const;
type UnservedKind = (typeof UNSERVED_KINDS)[number];

/** Why a Worker at the edge cannot serve each route kind. */
export const UNSERVED_ROUTE_KINDS: Readonly<Record<UnservedKind, string>> = {
  GRPCRoute: "gRPC needs HTTP/2 with trailers end to end, and a Worker's fetch() speaks neither to an upstream",
  TLSRoute: "Cloudflare terminates TLS before the Worker sees the request, so there is no TLS stream to route by SNI",
  TCPRoute: "a Worker handles HTTP requests; it does not proxy raw TCP connections",
  UDPRoute: "a Worker handles HTTP requests; it does not proxy UDP",
};

/**
 * The parents of `route` that are this edge's in the route's cluster: Gateways it serves, and its ListenerSets
 * (read only when their Gateway is of this edge's class), attached or not, so that a route through a set whose
 * listeners are not served is told too.
 */
function servedParents(
  route: Manifest,
  spec: RouteSpec,
  listeners: EdgeListener[],
  index: ResourceIndex,
): { namespace: string; name: string; sectionName?: string }[] {
  return (spec.parentRefs ?? []).flatMap((p) => {
    const namespace = p.namespace ?? route.metadata.namespace;
    const parent = { namespace, name: p.name, ...(p.sectionName === undefined ? {} : { sectionName: p.sectionName }) };
    if (p.kind && isListenerSetRef(p.group, p.kind)) return index.get(route.cluster, p.kind, namespace, p.name) ? [parent] : [];
    if ((p.group ?? GATEWAY_GROUP) !== GATEWAY_GROUP || (p.kind ?? "Gateway") !== "Gateway") return [];
    const served = listeners.some(
      (l) =>
        !l.listenerSet &&
        l.clusters.includes(route.cluster) &&
        l.gateway.metadata.namespace === namespace &&
        l.gateway.metadata.name === p.name,
    );
    return served ? [parent] : [];
  });
}

export function reportUnservedRoutes(index: ResourceIndex, listeners: EdgeListener[], report: CompileReport): void {
  for (const kind of UNSERVED_KINDS) {
    const why = UNSERVED_ROUTE_KINDS[kind];
    for (const route of index.all(kind)) {
      const parents = servedParents(route, specOf(route, kind), listeners, index);
      if (parents.length === 0) continue;
      const message = `${kind} is not served at the edge: ${why}; only HTTPRoute is`;
      report.error(route, "kind", REASON.NotAllowedByListeners, message);
      report.noteParents(route);
      for (const parentRef of parents) report.addParent(route, parentRef, [fails("Accepted", REASON.NotAllowedByListeners, message)]);
    }
  }
}
