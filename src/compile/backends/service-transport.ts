/**
 * @module How the edge speaks to a Service port's endpoints: the cluster's scheme, raised to TLS by the
 * port's `appProtocol` (GEP-1911) or by a BackendTLSPolicy (GEP-1897), or why it cannot speak to them at
 * all. A Worker's fetch speaks HTTP/1.1 or HTTP/2 negotiated over TLS, and passes WebSocket upgrades; it
 * cannot speak cleartext HTTP/2 (h2c) or anything that is not HTTP, so such a port is refused with
 * `UnsupportedProtocol` rather than called with the wrong protocol.
 */
import { type Reason, REASON } from "../status/conditions";
import type { CompiledEndpoint } from "../../table/route-table";
import type { BackendTlsPolicies } from "./backend-tls";
import type { ClusterSettings } from "../input/edge-config";

export interface ServicePort {
  name: string;
  port: number;
  /** The port's application protocol (GEP-1911), when the Service names one. */
  appProtocol?: string;
}

/** What every endpoint of the port is called with. */
export type Transport = Pick<CompiledEndpoint, "scheme" | "serverName">;

/** Why a port cannot be called, as a backendRef's ResolvedRefs reason and message. */
export interface Refusal {
  reason: Reason;
  message: string;
}

/**
 * appProtocol values, as Kubernetes (`kubernetes.io/...`), IANA service names and Istio write them:
 * what each asks of the edge. An unlisted value is refused: the edge cannot tell what it means.
 */
const APP_PROTOCOLS: Record<string, "http" | "https" | string> = {
  http: "http",
  "kubernetes.io/ws": "http",
  https: "https",
  "kubernetes.io/wss": "https",
  "kubernetes.io/h2c": "cleartext HTTP/2 (h2c), which a Worker's fetch cannot speak",
  http2: "cleartext HTTP/2 (h2c), which a Worker's fetch cannot speak",
  grpc: "gRPC, which a Worker's fetch cannot speak",
  "grpc-web": "http",
  "kubernetes.io/grpc": "gRPC, which a Worker's fetch cannot speak",
  tcp: "raw TCP; the edge proxies HTTP",
  udp: "UDP; the edge proxies HTTP",
  tls: "raw TLS; the edge proxies HTTP",
};

export function serviceTransport(
  tls: BackendTlsPolicies,
  cluster: ClusterSettings,
  service: { namespace: string; name: string },
  port: ServicePort,
): Transport | Refusal {
  const what = `Service ${service.namespace}/${service.name} port ${port.port}`;
  let scheme = cluster.endpoints.scheme;
  if (port.appProtocol !== undefined) {
    const meaning = APP_PROTOCOLS[port.appProtocol.toLowerCase()] ?? "a protocol the edge does not know";
    if (meaning !== "http" && meaning !== "https")
      return { reason: REASON.UnsupportedProtocol, message: `${what} has appProtocol ${port.appProtocol}: ${meaning}` };
    if (meaning === "https") scheme = "https";
  }
  const policy = tls.forPort(cluster.name, service.namespace, service.name, port.name);
  if (!policy) return { scheme };
  if ("refused" in policy)
    return {
      reason: REASON.InvalidBackendTLSPolicy,
      message: `${what} is under ${policy.policy}, which the edge cannot meet: ${policy.refused}`,
    };
  // TLS under the policy's hostname needs a URL naming that host; a network binding connects to the host its
  // URL names, so it could not reach the pod by that name. Refused rather than called without the policy.
  if (cluster.endpoints.network)
    return {
      reason: REASON.InvalidBackendTLSPolicy,
      message: `${what} is under a BackendTLSPolicy, which the edge cannot meet in cluster ${cluster.name}: it is reached through the network binding ${cluster.endpoints.network}, whose fetch() connects to the address its URL names, so TLS under the hostname ${policy.serverName} cannot be asked of each pod (reach the cluster by LoadBalancer or Hostname for TLS by name; the tunnel already encrypts the way to the cluster)`,
    };
  return { scheme: "https", serverName: policy.serverName };
}

export const isRefusal = (t: Transport | Refusal): t is Refusal => "reason" in t;
