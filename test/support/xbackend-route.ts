/**
 * @module One cluster (`c1`) whose route shop/web sends everything to the XBackend shop/partner
 * (api.partner.example, allowed by the edge's egress list) through the Gateway shop/gw.
 */

export const XBACKEND_EDGE = `apiVersion: kedge.dev/v1alpha1
kind: EdgeConfig
metadata: { name: status }
spec: { gatewayClassName: kedge, clusters: [{ name: c1 }], egress: { allowedHostnames: ["api.partner.example"] } }
`;

/** `generation`s are set on the Gateway (3) and the route (7); the XBackend has none. */
export const XBACKEND_ROUTE = `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: { name: gw, namespace: shop, generation: 3 }
spec: { gatewayClassName: kedge, listeners: [{ name: http, protocol: HTTP, port: 80 }] }
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: { name: web, namespace: shop, generation: 7 }
spec:
  parentRefs: [{ name: gw }]
  rules: [{ backendRefs: [{ group: gateway.networking.x-k8s.io, kind: XBackend, name: partner }] }]
---
apiVersion: gateway.networking.x-k8s.io/v1alpha1
kind: XBackend
metadata: { name: partner, namespace: shop }
spec: { type: ExternalHostname, externalHostname: { hostname: api.partner.example }, port: { port: 443 }, protocol: HTTP, tls: { mode: ServerOnly } }
`;
