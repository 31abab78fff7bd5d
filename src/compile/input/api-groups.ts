/** @module The API groups whose kinds kedge reads as backends and routes. */

export const GATEWAY_GROUP = "gateway.networking.k8s.io";
/** Gateway API experimental kinds (XBackend, the experimental CompositeBackend). */
export const X_GROUP = "gateway.networking.x-k8s.io";
/** Multi-Cluster Services (KEP-1645): ServiceExport, ServiceImport. */
export const MCS_GROUP = "multicluster.x-k8s.io";

/** The controllerName kedge writes status as (a GatewayClass's spec.controllerName names its controller). */
export const KEDGE_CONTROLLER = "kedge.dev/edge";
