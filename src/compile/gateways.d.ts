import { type Manifest } from "../gateway-api/manifest";
import type { Protocol } from "../table/route-table";
import type { Condition, Diagnostics, ResourceStatus } from "./diagnostics";
import type { ResourceIndex } from "./resource-index";
export interface EdgeListener {
  /** `<cluster>/<namespace>/<gateway>/<listener>` */
  id: string;
  gateway: Manifest;
  name: string;
  protocol: Protocol;
  port: number;
  hostname?: string;
  /** Whether a route in `namespace` (of the gateway's cluster) may attach. */
  allowsNamespace: (namespace: string) => boolean;
  /** Whether HTTPRoute is among allowedRoutes.kinds (default: yes). */
  allowsHTTPRoute: boolean;
  attachedRoutes: number;
  conditions: Condition[];
}
/** True when the listener was accepted and is served. */
export declare const isServed: (l: EdgeListener) => boolean;
/** Compiles every Gateway of `gatewayClassName`; listeners that cannot be served stay out (with conditions). */
export declare function compileGateways(index: ResourceIndex, gatewayClassName: string, diagnostics: Diagnostics): EdgeListener[];
/** The status block of each served Gateway. */
export declare function gatewayStatuses(listeners: EdgeListener[]): ResourceStatus[];
