/**
 * @module The Gateway API conformance fixture: Gateway `same-namespace` (one HTTP listener on port 80,
 * no hostname) and Services infra-backend-v1..v3 whose endpoints are loopback ports.
 */

export const EDGE_YAML = `
apiVersion: kedge.dev/v1alpha1
kind: EdgeConfig
metadata: { name: test }
spec:
  gatewayClassName: kedge
  clusters:
    - name: c1
`;

/** Backend name → loopback port of its origin. */
export type BackendPorts = Record<"v1" | "v2" | "v3", number>;

export function infraYaml(ports: BackendPorts): string {
  const backends = (["v1", "v2", "v3"] as const).map(
    (v) => `
apiVersion: v1
kind: Service
metadata: { name: infra-backend-${v}, namespace: gateway-conformance-infra }
spec:
  ports: [{ name: http, port: 8080 }]
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata:
  name: infra-backend-${v}-1
  namespace: gateway-conformance-infra
  labels: { kubernetes.io/service-name: infra-backend-${v} }
addressType: IPv4
ports: [{ name: http, port: ${ports[v]} }]
endpoints:
  - addresses: ["127.0.0.1"]
`,
  );
  return `
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: { name: same-namespace, namespace: gateway-conformance-infra }
spec:
  gatewayClassName: kedge
  listeners:
    - name: http
      protocol: HTTP
      port: 80
      allowedRoutes: { namespaces: { from: Same } }
---
${backends.join("---\n")}`;
}

/** An HTTPRoute attached to the conformance Gateway, with `rules` (YAML items indented by 4 spaces). */
export const infraRoute = (rules: string, name = "r"): string => `
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: { name: ${name}, namespace: gateway-conformance-infra }
spec:
  parentRefs: [{ name: same-namespace }]
  rules:
${rules}`;
