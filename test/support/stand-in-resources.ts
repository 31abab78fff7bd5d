/**
 * The resources a stand-in API server serves, built by kind: each kind's group, version and plural are
 * written once here, so a test states only its objects.
 */
import type { StandInResource } from "./kube-api-stand-in";

const GW = "gateway.networking.k8s.io";

const WHERE = {
  GatewayClass: { group: GW, version: "v1", plural: "gatewayclasses" },
  Gateway: { group: GW, version: "v1", plural: "gateways" },
  HTTPRoute: { group: GW, version: "v1", plural: "httproutes" },
  Service: { group: "", version: "v1", plural: "services" },
  Namespace: { group: "", version: "v1", plural: "namespaces" },
  EndpointSlice: { group: "discovery.k8s.io", version: "v1", plural: "endpointslices" },
} satisfies Record<string, Pick<StandInResource, "group" | "version" | "plural">>;

/** The resource of a kind above, holding `items` (objects as written in YAML, without apiVersion/kind). */
export const resource = (kind: keyof typeof WHERE, items: Record<string, unknown>[]): StandInResource => ({
  ...WHERE[kind],
  kind,
  items,
});

/** GatewayClass `kedge` of kedge's controller. */
export const kedgeClass = (): StandInResource =>
  resource("GatewayClass", [{ metadata: { name: "kedge" }, spec: { controllerName: "kedge.dev/edge" } }]);

/** A Service `name` with one port 80 named http. */
export const httpService = (namespace: string, name: string): Record<string, unknown> => ({
  metadata: { name, namespace },
  spec: { ports: [{ name: "http", port: 80 }] },
});

/** An EndpointSlice of `service` with one ready endpoint at 127.0.0.1:`port`. */
export const loopbackSlice = (namespace: string, service: string, name: string, port: number): Record<string, unknown> => ({
  metadata: { name, namespace, labels: { "kubernetes.io/service-name": service } },
  addressType: "IPv4",
  ports: [{ name: "http", port }],
  endpoints: [{ addresses: ["127.0.0.1"], conditions: { ready: true } }],
});
