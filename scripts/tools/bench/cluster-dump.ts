/**
 * @module A large cluster's dump, as `kubectl get svc,endpointslices -A -o yaml` (or `-o json`) prints it: N
 * Services and their EndpointSlices with the metadata a real API server adds (annotations, labels, owner
 * references, managed-by labels, target refs), of which only a few are routed; and the Gateway and routes for
 * those few, apart. For the bench and the scale tests: what kedge meets in a real cluster.
 */
import { stringify } from "yaml";

export interface DumpOptions {
  services: number;
  /** How many of the Services routes send to (the first ones). */
  routed: number;
  /** Ready endpoints per Service (one EndpointSlice each). */
  endpoints?: number;
  format?: "yaml" | "json";
}

const namespaceOf = (i: number) => `team-${i % 40}`;
const serviceName = (i: number) => `svc-${i}`;

function service(i: number): Record<string, unknown> {
  const name = serviceName(i);
  const namespace = namespaceOf(i);
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: {
      annotations: {
        "kubectl.kubernetes.io/last-applied-configuration": JSON.stringify({
          apiVersion: "v1",
          kind: "Service",
          metadata: { annotations: {}, labels: { app: name, team: namespace }, name, namespace },
          spec: { ports: [{ name: "http", port: 80, targetPort: 8080 }], selector: { app: name } },
        }),
      },
      creationTimestamp: "2026-01-15T08:30:00Z",
      labels: { app: name, team: namespace, "app.kubernetes.io/part-of": "platform" },
      name,
      namespace,
      resourceVersion: String(100000 + i),
      uid: `6f1c2d3e-0000-4000-8000-${String(i).padStart(12, "0")}`,
    },
    spec: {
      clusterIP: `10.96.${(i >> 8) & 255}.${i & 255}`,
      clusterIPs: [`10.96.${(i >> 8) & 255}.${i & 255}`],
      internalTrafficPolicy: "Cluster",
      ipFamilies: ["IPv4"],
      ipFamilyPolicy: "SingleStack",
      ports: [
        { name: "http", port: 80, protocol: "TCP", targetPort: 8080 },
        { name: "metrics", port: 9090, protocol: "TCP", targetPort: 9090 },
      ],
      selector: { app: name },
      sessionAffinity: "None",
      type: "ClusterIP",
    },
    status: { loadBalancer: {} },
  };
}

function endpointSlice(i: number, endpoints: number): Record<string, unknown> {
  const name = serviceName(i);
  const namespace = namespaceOf(i);
  return {
    addressType: "IPv4",
    apiVersion: "discovery.k8s.io/v1",
    endpoints: Array.from({ length: endpoints }, (_, e) => ({
      addresses: [`10.${(i >> 8) & 255}.${i & 255}.${e + 10}`],
      conditions: { ready: true, serving: true, terminating: false },
      nodeName: `node-${(i + e) % 50}`,
      targetRef: {
        kind: "Pod",
        name: `${name}-7d9f8b6c5-${e}x${i}`,
        namespace,
        uid: `a1b2c3d4-0000-4000-8000-${String(i * 10 + e).padStart(12, "0")}`,
      },
      zone: `zone-${e % 3}`,
    })),
    kind: "EndpointSlice",
    metadata: {
      annotations: { "endpoints.kubernetes.io/last-change-trigger-time": "2026-01-15T08:31:00Z" },
      creationTimestamp: "2026-01-15T08:30:01Z",
      generateName: `${name}-`,
      generation: 3,
      labels: {
        "endpointslice.kubernetes.io/managed-by": "endpointslice-controller.k8s.io",
        "kubernetes.io/service-name": name,
        app: name,
      },
      name: `${name}-abcde`,
      namespace,
      ownerReferences: [
        {
          apiVersion: "v1",
          blockOwnerDeletion: true,
          controller: true,
          kind: "Service",
          name,
          uid: `6f1c2d3e-0000-4000-8000-${String(i).padStart(12, "0")}`,
        },
      ],
      resourceVersion: String(200000 + i),
      uid: `b1c2d3e4-0000-4000-8000-${String(i).padStart(12, "0")}`,
    },
    ports: [
      { name: "http", port: 8080, protocol: "TCP" },
      { name: "metrics", port: 9090, protocol: "TCP" },
    ],
  };
}

/** The dump: one `kind: List` of every Service and EndpointSlice, as kubectl prints it. */
export function clusterDump(o: DumpOptions): string {
  const items: Record<string, unknown>[] = [];
  for (let i = 0; i < o.services; i++) items.push(service(i));
  for (let i = 0; i < o.services; i++) items.push(endpointSlice(i, o.endpoints ?? 5));
  const list = { apiVersion: "v1", items, kind: "List", metadata: { resourceVersion: "" } };
  return o.format === "json" ? `${JSON.stringify(list, null, 4)}\n` : stringify(list, { lineWidth: 0 });
}

/** A Gateway and one HTTPRoute for each of the first `routed` Services, one host each. */
export function routesFor(o: DumpOptions): string {
  const docs = [
    `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: { name: edge, namespace: infra }
spec:
  gatewayClassName: kedge
  listeners: [{ name: http, protocol: HTTP, port: 80, allowedRoutes: { namespaces: { from: All } } }]
`,
  ];
  for (let i = 0; i < o.routed; i++)
    docs.push(`apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: { name: ${serviceName(i)}, namespace: ${namespaceOf(i)} }
spec:
  parentRefs: [{ name: edge, namespace: infra }]
  hostnames: [${serviceName(i)}.example.com]
  rules: [{ backendRefs: [{ name: ${serviceName(i)}, port: 80 }] }]
`);
  return docs.join("---\n");
}
