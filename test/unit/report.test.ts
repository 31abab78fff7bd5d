/**
 * The sync's human report: per cluster and object, as a controller's status reads. Backend objects
 * (XBackend, backend policies) say which Gateways they are used through, or that none is.
 */
import { describe, expect, it } from "vitest";
import { formatReport } from "../../scripts/report/report";
import { compileYaml } from "../support/compile-fixture";
import { XBACKEND_EDGE, XBACKEND_ROUTE } from "../support/xbackend-route";

const RESOURCES = `${XBACKEND_ROUTE}---
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
    const result = await compileYaml(XBACKEND_EDGE, { c1: RESOURCES });
    const lines = formatReport({ ...result, skipped: [], clusters: ["c1"] }).split("\n");
    const after = (heading: string) => lines[lines.findIndex((l) => l.startsWith(heading)) + 1];
    expect(lines).toContain("  XBackend shop/partner  Accepted=True");
    expect(after("  XBackend shop/partner")).toBe("    used through Gateway shop/gw");
    expect(lines).toContain("  BackendLBPolicy shop/idle-sticky  Accepted=True");
    expect(after("  BackendLBPolicy shop/idle-sticky")).toBe("    used through no Gateway of this cluster");
    expect(after("  HTTPRoute shop/web")).toBe("    parent shop/gw: Accepted=True  ResolvedRefs=True");
    expect(lines.at(-1)).toMatch(/^0 errors, 0 warnings( \(and 1 note: --verbose shows them\))?$/);
  });

  it("counts errors, not rejected objects: a route whose one rule was dropped is still served", async () => {
    const partly = `${RESOURCES}---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: { name: partly, namespace: shop }
spec:
  parentRefs: [{ name: gw }]
  rules:
    - matches: [{ path: { type: PathPrefix, value: /partly } }]
      backendRefs: [{ name: idle, port: 80 }]
    - matches: [{ path: { type: PathPrefix, value: /bad } }]
      filters: [{ type: ExtensionRef, extensionRef: { group: example.com, kind: Auth, name: strict } }]
      backendRefs: [{ name: idle, port: 80 }]
`;
    const result = await compileYaml(XBACKEND_EDGE, { c1: partly });
    const lines = formatReport({ ...result, skipped: [], clusters: ["c1"] }).split("\n");
    expect(lines).toContain("    parent shop/gw: Accepted=True  ResolvedRefs=True  PartiallyInvalid=True UnsupportedValue");
    expect(lines.at(-1)).toMatch(/^1 error, \d+ warnings?( \(and \d+ notes?: --verbose shows them\))?$/);
  });
});

describe("the report of a big config", () => {
  it("counts the objects with nothing to say, and still lists those with something", async ({ expect }) => {
    const routes = Array.from(
      { length: 250 },
      (_, i) => `apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: { name: r${i}, namespace: shop }
spec: { parentRefs: [{ name: gw }], hostnames: [h${i}.example.com], rules: [{ backendRefs: [{ name: ${i === 7 ? "nope" : "idle"}, port: 80 }] }] }
`,
    );
    const result = await compileYaml(XBACKEND_EDGE, { c1: [RESOURCES, ...routes].join("---\n") });
    const text = formatReport({ ...result, skipped: [], clusters: ["c1"] });
    expect(text).toContain("  250 HTTPRoutes accepted, with nothing to say (--verbose or -o json lists each)");
    // r7's backendRef does not resolve: it is listed with its conditions and its error.
    expect(text).toContain("  HTTPRoute shop/r7\n    parent shop/gw: Accepted=True  ResolvedRefs=False BackendNotFound");
    expect(text).not.toContain("HTTPRoute shop/r8\n");
    expect(formatReport({ ...result, skipped: [], clusters: ["c1"], verbose: true })).toContain("HTTPRoute shop/r8\n");
  });
});
