/**
 * The sync's human report: per cluster and object, as a controller's status reads. Backend objects
 * (XBackend, backend policies) say which Gateways they are used through, or that none is.
 */
import { describe, expect, it } from "vitest";
import { formatReport } from "../../scripts/sync/report";
import { compileYaml } from "../support/compile-fixture";

const EDGE = `apiVersion: kedge.dev/v1alpha1
kind: EdgeConfig
metadata: { name: report }
spec: { gatewayClassName: kedge, clusters: [{ name: c1 }], egress: { allowedHostnames: ["api.partner.example"] } }
`;

const RESOURCES = `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: { name: gw, namespace: shop }
spec: { gatewayClassName: kedge, listeners: [{ name: http, protocol: HTTP, port: 80 }] }
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: { name: web, namespace: shop }
spec:
  parentRefs: [{ name: gw }]
  rules: [{ backendRefs: [{ group: gateway.networking.x-k8s.io, kind: XBackend, name: partner }] }]
---
apiVersion: gateway.networking.x-k8s.io/v1alpha1
kind: XBackend
metadata: { name: partner, namespace: shop }
spec: { type: ExternalHostname, externalHostname: { hostname: api.partner.example }, port: { port: 443 }, protocol: HTTP, tls: { mode: ServerOnly } }
---
apiVersion: v1
kind: Service
metadata: { name: idle, namespace: shop }
spec: { ports: [{ port: 80 }] }
---
apiVersion: gateway.networking.k8s.io/v1alpha2
kind: BackendLBPolicy
metadata: { name: idle-sticky, namespace: shop }
spec:
  targetRefs: [{ group: "", kind: Service, name: idle }]
  sessionPersistence: { sessionName: idle, type: Cookie }
`;

describe("formatReport", () => {
  it("lists each object with its conditions, and the Gateways a backend object is used through", async () => {
    const result = await compileYaml(EDGE, { c1: RESOURCES });
    const lines = formatReport({ ...result, skipped: [], clusters: ["c1"] }).split("\n");
    const after = (heading: string) => lines[lines.findIndex((l) => l.startsWith(heading)) + 1];
    expect(lines).toContain("  XBackend shop/partner  Accepted=True");
    expect(after("  XBackend shop/partner")).toBe("    used through Gateway shop/gw");
    expect(lines).toContain("  BackendLBPolicy shop/idle-sticky  Accepted=True");
    expect(after("  BackendLBPolicy shop/idle-sticky")).toBe("    used through no Gateway of this cluster");
    expect(after("  HTTPRoute shop/web")).toBe("    parent shop/gw: Accepted=True  ResolvedRefs=True");
    expect(lines.at(-1)).toBe("0 rejected, 0 warnings");
  });
});
