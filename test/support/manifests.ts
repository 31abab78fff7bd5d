/** @module YAML builders for the objects most tests need, so each test spells out only what it is about. */

export interface GatewayAndRouteOptions {
  namespace: string;
  /** The listener's hostname; none serves every host. */
  hostname?: string;
  route?: string;
  /** The route's own hostnames (spec.hostnames). */
  routeHostnames?: string[];
  /** The route's `rules:` items, as YAML indented by 4 spaces. */
  rules: string;
}

/** kedge.yaml for table `name` with these clusters (one, c1, unless given; a YAML flow list) and nothing else set. */
export function edgeConfig(name: string, clusters = "[{ name: c1 }]"): string {
  return `apiVersion: kedge.dev/v1alpha1
kind: EdgeConfig
metadata: { name: ${name} }
spec: { gatewayClassName: kedge, clusters: ${clusters} }
`;
}

/** Gateway `gw` of class kedge with one HTTP listener on port 80, and an HTTPRoute attached to it. */
export function gatewayAndRoute(o: GatewayAndRouteOptions): string {
  return `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: { name: gw, namespace: ${o.namespace} }
spec:
  gatewayClassName: kedge
  listeners: [{ name: http, protocol: HTTP, port: 80${o.hostname ? `, hostname: ${o.hostname}` : ""} }]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: { name: ${o.route ?? "web"}, namespace: ${o.namespace} }
spec:
  parentRefs: [{ name: gw }]
${o.routeHostnames ? `  hostnames: [${o.routeHostnames.join(", ")}]\n` : ""}  rules:
${o.rules}
`;
}

/** A Service with one port named `http`. */
export function service(name: string, namespace: string, port = 8080): string {
  return `apiVersion: v1
kind: Service
metadata: { name: ${name}, namespace: ${namespace} }
spec: { ports: [{ name: http, port: ${port} }] }
`;
}

export interface SliceOptions {
  service: string;
  name: string;
  namespace: string;
  /** The endpoint's port (a loopback origin). */
  port: number;
  /** YAML of the endpoint's conditions; ready by default. */
  conditions?: string;
  /** The Service port the slice's port belongs to; `http` by default. */
  portName?: string;
  /** One endpoint of these addresses; 127.0.0.1 by default. */
  addresses?: string[];
}

/** An EndpointSlice of one endpoint (127.0.0.1 unless `addresses` says otherwise), on port `http` unless `portName` names another. */
export function endpointSlice(o: SliceOptions): string {
  return `apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata: { name: ${o.name}, namespace: ${o.namespace}, labels: { kubernetes.io/service-name: ${o.service} } }
addressType: IPv4
ports: [{ name: ${o.portName ?? "http"}, port: ${o.port} }]
endpoints: [{ addresses: ${JSON.stringify(o.addresses ?? ["127.0.0.1"])}, conditions: ${o.conditions ?? "{ ready: true }"} }]
`;
}

/** Documents joined into one multi-document YAML text. */
export const yamlDocs = (...docs: string[]): string => docs.join("---\n");

/**
 * A "billion laughs" YAML mapping: seven keys, each a list of nine aliases of the one before, so reading
 * it expands 9^7 strings. `indent` nests it under a parent key.
 */
export function aliasBomb(indent = ""): string {
  const lines = [`${indent}a: &a [x, x, x, x, x, x, x, x, x]`];
  const names = "abcdefg";
  for (let i = 1; i < names.length; i++) {
    lines.push(
      `${indent}${names[i]}: &${names[i]} [${Array(9)
        .fill(`*${names[i - 1]}`)
        .join(", ")}]`,
    );
  }
  return `${lines.join("\n")}\n`;
}
