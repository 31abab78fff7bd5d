/**
 * @module Resolves a Service port of one cluster to the endpoints the edge can reach (DESIGN.md §3):
 * EndpointSlice addresses, the Service's load-balancer ingress, or a per-cluster hostname template.
 */
import { type Manifest } from "../gateway-api/manifest";
import type { CompiledEndpoint } from "../table/route-table";
import type { ClusterSettings } from "./edge-config";
import type { ResourceIndex } from "./resource-index";
export interface ServicePort {
  name: string;
  port: number;
}
/** The Service's ports; a port without a name has the name "" (as in EndpointSlice ports). */
export declare function servicePorts(service: Manifest): ServicePort[];
/** Endpoints of one Service port in its cluster, deduplicated by id, in a stable order. */
export declare function resolveServiceEndpoints(
  index: ResourceIndex,
  cluster: ClusterSettings,
  service: Manifest,
  port: ServicePort,
): CompiledEndpoint[];
