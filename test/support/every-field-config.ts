/**
 * @module A config whose compiled table sets every field the table format has at least once (filters of each
 * kind, retry, timeouts, both session kinds, health checks, retry budgets, locality, egress, TLS by name,
 * client certificates, mTLS and network bindings, a client's host kept, invalid rules and refs, every host
 * index, clusters draining, disabled, prioritised and stale): what the table schema's tests compile, so that each of its fields is seen and mutated.
 */

export const EVERY_FIELD_EDGE = `apiVersion: kedge.dev/v1alpha1
kind: EdgeConfig
metadata: { name: every }
spec:
  gatewayClassName: kedge
  locality: { minHealthyEndpoints: 1 }
  healthChecks: { path: /healthz, timeout: 2s }
  egress:
    allowLocalhost: true
    allowedHostnames: [partner.example]
    clientCertificates: { shop/partner-client: PARTNER_MTLS }
  clusters:
    - { name: east, locality: { continent: NA, countries: [US], colos: [IAD] } }
    - { name: vpc, endpoints: { network: VPC_EAST } }
    - name: lb
      state: Draining
      priority: 1
      endpoints: { from: LoadBalancer, keepClientHost: true }
    - { name: off, state: Disabled }
  failover: { minHealthyEndpoints: 1 }
`;

/** Set on cluster vpc after parsing: what \`sync --watch\` says of a cluster whose API stopped answering. */
export const EVERY_FIELD_STALE_SINCE = "2026-11-26T10:00:00.000Z";

const EAST = `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: { name: gw, namespace: shop }
spec:
  gatewayClassName: kedge
  listeners:
    - { name: http, protocol: HTTP, port: 80, hostname: shop.example.com }
    - { name: wild, protocol: HTTP, port: 80, hostname: "*.shop.example.com" }
    - { name: any, protocol: HTTP, port: 8080 }
    - { name: https, protocol: HTTPS, port: 443, hostname: secure.example.com }
    - { name: https-wild, protocol: HTTPS, port: 443, hostname: "*.secure.example.com" }
    - { name: https-any, protocol: HTTPS, port: 8443 }
  tls:
    frontend:
      default:
        validation: { caCertificateRefs: [{ group: "", kind: ConfigMap, name: client-ca }] }
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: { name: shop, namespace: shop }
spec:
  parentRefs: [{ name: gw }]
  rules:
    - matches:
        - path: { type: Exact, value: /exact }
          method: POST
          headers: [{ name: x-a, value: "1" }, { type: RegularExpression, name: x-b, value: "b+" }]
          queryParams: [{ name: q, value: "1" }, { type: RegularExpression, name: r, value: "r+" }]
      filters:
        - type: RequestHeaderModifier
          requestHeaderModifier: { set: [{ name: x-set, value: "1" }], add: [{ name: x-add, value: "2" }], remove: [x-remove] }
        - type: ResponseHeaderModifier
          responseHeaderModifier: { set: [{ name: x-r, value: "1" }] }
        - type: URLRewrite
          urlRewrite: { hostname: upstream.example, path: { type: ReplaceFullPath, replaceFullPath: /full } }
        - type: RequestMirror
          requestMirror: { backendRef: { name: audit, port: 8080 }, percent: 50 }
        - type: CORS
          cors: { allowOrigins: ["https://a.example"], allowCredentials: true, allowMethods: [GET], allowHeaders: [x-h], exposeHeaders: [x-e], maxAge: 60 }
      timeouts: { request: 10s, backendRequest: 2s }
      retry: { codes: [503], attempts: 2, backoff: 100ms }
      sessionPersistence:
        { sessionName: cart, type: Cookie, absoluteTimeout: 1h, idleTimeout: 10m, cookieConfig: { lifetimeType: Permanent } }
      backendRefs:
        - name: web
          port: 8080
          weight: 3
          filters: [{ type: RequestHeaderModifier, requestHeaderModifier: { set: [{ name: x-ref, value: "1" }] } }]
        - { name: missing, port: 8080, weight: 1 }
    - matches: [{ path: { type: PathPrefix, value: /prefix } }]
      filters: [{ type: URLRewrite, urlRewrite: { path: { type: ReplacePrefixMatch, replacePrefixMatch: /other } } }]
      sessionPersistence: { type: Header, header: { name: x-session } }
      backendRefs: [{ name: tls-web, port: 8443 }, { group: gateway.networking.x-k8s.io, kind: XBackend, name: partner }]
    - matches: [{ path: { type: RegularExpression, value: "/re/[0-9]+" } }]
      filters: [{ type: RequestRedirect, requestRedirect: { scheme: https, hostname: moved.example, port: 8443, statusCode: 301, path: { type: ReplaceFullPath, replaceFullPath: /new } } }]
    - matches: [{ path: { type: PathPrefix, value: /bad } }]
      filters: [{ type: ExtensionRef, extensionRef: { group: example.com, kind: Filter, name: f } }]
      backendRefs: [{ name: web, port: 8080 }]
    - matches: [{ path: { type: PathPrefix, value: /private } }]
      backendRefs: [{ group: gateway.networking.k8s.io, kind: CompositeBackend, name: spread, port: 8080 }]
---
apiVersion: v1
kind: Service
metadata: { name: web, namespace: shop }
spec: { ports: [{ name: http, port: 8080 }] }
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata: { name: web-1, namespace: shop, labels: { kubernetes.io/service-name: web } }
addressType: IPv4
ports: [{ name: http, port: 9000 }]
endpoints: [{ addresses: ["127.0.0.1"], zone: us-east-1a, conditions: { ready: true, serving: true, terminating: false } }]
---
apiVersion: v1
kind: Service
metadata: { name: audit, namespace: shop }
spec: { ports: [{ name: http, port: 8080 }] }
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata: { name: audit-1, namespace: shop, labels: { kubernetes.io/service-name: audit } }
addressType: IPv4
ports: [{ name: http, port: 9001 }]
endpoints: [{ addresses: ["127.0.0.1"] }]
---
apiVersion: v1
kind: Service
metadata: { name: tls-web, namespace: shop }
spec: { ports: [{ name: https, port: 8443 }] }
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata: { name: tls-web-1, namespace: shop, labels: { kubernetes.io/service-name: tls-web } }
addressType: IPv4
ports: [{ name: https, port: 9443 }]
endpoints: [{ addresses: ["127.0.0.1"] }]
---
apiVersion: gateway.networking.k8s.io/v1
kind: BackendTLSPolicy
metadata: { name: tls-web, namespace: shop }
spec:
  targetRefs: [{ group: "", kind: Service, name: tls-web }]
  validation: { hostname: tls-web.shop.example.com, wellKnownCACertificates: System }
---
apiVersion: gateway.networking.x-k8s.io/v1alpha1
kind: XBackend
metadata: { name: partner, namespace: shop }
spec:
  type: ExternalHostname
  externalHostname: { hostname: partner.example }
  port: { port: 443 }
  tls: { mode: ClientAndServer, clientCertificateRef: { name: partner-client } }
---
apiVersion: gateway.networking.x-k8s.io/v1alpha1
kind: XBackendTrafficPolicy
metadata: { name: budget, namespace: shop }
spec:
  targetRefs: [{ group: "", kind: Service, name: web }]
  retryConstraint: { budget: { percent: 30, interval: 10s }, minRetryRate: { count: 5, interval: 1s } }
---
apiVersion: gateway.networking.k8s.io/v1
kind: CompositeBackend
metadata: { name: spread, namespace: shop }
spec: { targetRefs: [{ kind: Service, name: web }] }
`;

/** Cluster vpc: the CompositeBackend's member whose pods are reached through a network binding. */
const VPC = `apiVersion: gateway.networking.k8s.io/v1
kind: CompositeBackend
metadata: { name: spread, namespace: shop }
spec: { targetRefs: [{ kind: Service, name: web }] }
---
apiVersion: v1
kind: Service
metadata: { name: web, namespace: shop }
spec: { ports: [{ name: http, port: 8080 }] }
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata: { name: web-1, namespace: shop, labels: { kubernetes.io/service-name: web } }
addressType: IPv4
ports: [{ name: http, port: 8080 }]
endpoints: [{ addresses: ["10.0.0.5"] }]
`;

/** Cluster lb: a member reached by its load balancer's name, keeping the client's Host. */
const LB = `apiVersion: gateway.networking.k8s.io/v1
kind: CompositeBackend
metadata: { name: spread, namespace: shop }
spec: { targetRefs: [{ kind: Service, name: web }] }
---
apiVersion: v1
kind: Service
metadata: { name: web, namespace: shop }
spec: { ports: [{ name: http, port: 8080 }] }
status: { loadBalancer: { ingress: [{ hostname: web.lb.example.com }] } }
`;

export const EVERY_FIELD_CLUSTERS: Record<string, string> = { east: EAST, vpc: VPC, lb: LB };
