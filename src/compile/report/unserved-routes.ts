/**
 * @module GRPCRoute, TLSRoute, TCPRoute and UDPRoute attached to a Gateway this edge serves: never
 * dropped silently. Each gets, per parent, `Accepted=False NotAllowedByListeners` (the edge's listeners
 * support HTTPRoute only) with the reason a Worker cannot serve it, and an error in the report.
 */
import type { CompileReport } from "../status/compile-report";
import type { Manifest } from "../../gateway-api/manifest";
import { GATEWAY_GROUP } from "../input/api-groups";
import { fails, REASON } from "../status/conditions";
import type { EdgeListener } from "../gateways/listener";
import type { ResourceIndex } from "../input/resource-index";
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

/** The parents of `route` (Gateways or ListenerSets) that this edge serves in the route's cluster. */
function servedParents(
  route: Manifest,
  spec: RouteSpec,
  listeners: EdgeListener[],
): { namespace: string; name: string; sectionName?: string }[] {
  return (spec.parentRefs ?? []).flatMap((p) => {
    if ((p.group ?? GATEWAY_GROUP) !== GATEWAY_GROUP) return [];
    const namespace = p.namespace ?? route.metadata.namespace;
    const kind = p.kind ?? "Gateway";
    const served = listeners.some((l) => {
      const owner = kind === "Gateway" ? (l.listenerSet ? undefined : l.gateway) : l.listenerSet?.[0];
      return (
        owner !== undefined &&
        l.clusters.includes(route.cluster) &&
        owner.metadata.namespace === namespace &&
        owner.metadata.name === p.name
      );
    });
    return served ? [{ namespace, name: p.name, ...(p.sectionName === undefined ? {} : { sectionName: p.sectionName }) }] : [];
  });
}

export function reportUnservedRoutes(index: ResourceIndex, listeners: EdgeListener[], report: CompileReport): void {
  for (const kind of UNSERVED_KINDS) {
    const why = UNSERVED_ROUTE_KINDS[kind];
    for (const route of index.all(kind)) {
      const parents = servedParents(route, specOf(route, kind), listeners);
      if (parents.length === 0) continue;
      const message = `${kind} is not served at the edge: ${why}; only HTTPRoute is`;
      report.error(route, "kind", REASON.NotAllowedByListeners, message);
      report.noteParents(route);
      for (const parentRef of parents) report.addParent(route, parentRef, [fails("Accepted", REASON.NotAllowedByListeners, message)]);
    }
  }
}
