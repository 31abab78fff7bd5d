/**
 * @module A listener the edge may serve: of a Gateway of the served class, or of a ListenerSet attached to
 * one. Plain data; what a controller writes about it (conditions, attached routes) is in the status report.
 */
import type { Manifest } from "../../gateway-api/manifest";
import type { Protocol } from "../../table/route-table";
import type { ClientCertificate } from "./frontend-tls";

export interface EdgeListener {
  /** `<clusters>/<namespace>/<gateway>/<listener>`, the clusters joined by commas */
  id: string;
  /** The Gateway as served: the oldest of its identical copies. */
  gateway: Manifest;
  /** The clusters holding an identical copy of the Gateway: routes of these clusters may attach. */
  clusters: string[];
  /** Every identical copy (one per cluster), each of which gets the status. */
  copies: Manifest[];
  /** The ListenerSet that defines this listener (its copies), when it is not the Gateway's own. */
  listenerSet?: Manifest[];
  name: string;
  protocol: Protocol;
  port: number;
  hostname?: string;
  /** Whether a route in `namespace` of `cluster` (one of the Gateway's clusters) may attach. */
  allowsNamespace: (namespace: string, cluster: string) => boolean;
  /** Whether HTTPRoute is among allowedRoutes.kinds (default: yes). */
  allowsHTTPRoute: boolean;
  /** Accepted and served (its conditions, in the status book, say why not). */
  served: boolean;
  /** For a listener without a hostname: its Gateway's Hostname addresses, the only hosts it then takes. */
  addresses?: string[];
  /** An HTTPS listener's client certificate requirement (Gateway spec.tls.frontend). */
  clientCertificate?: ClientCertificate;
}

/** True when the listener was accepted and is served. */
export const isServed = (l: EdgeListener): boolean => l.served;
