/**
 * `--status-out DIR`: one status document per object, as a Gateway API controller would write it: the
 * object's own apiVersion, observedGeneration from its metadata.generation (none when it had none), route
 * parents with this controller's name, listeners with their attached routes.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { writeStatusFiles } from "../../scripts/sync/write-status";
import { compileYaml } from "../support/compile-fixture";

const EDGE = `apiVersion: kedge.dev/v1alpha1
kind: EdgeConfig
metadata: { name: status }
spec: { gatewayClassName: kedge, clusters: [{ name: c1 }], egress: { allowedHostnames: ["api.partner.example"] } }
`;

const RESOURCES = `apiVersion: gateway.networking.k8s.io/v1
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

interface Conditioned {
  conditions: Record<string, unknown>[];
}
interface StatusDocument {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace: string };
  status: Conditioned & {
    listeners: (Conditioned & { name: string; attachedRoutes: number })[];
    parents: (Conditioned & { parentRef: Record<string, string>; controllerName: string })[];
  };
}

describe("writeStatusFiles", () => {
  const dir = mkdtempSync(join(tmpdir(), "kedge-status-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const read = (file: string) => parse(readFileSync(join(dir, "c1", file), "utf8")) as StatusDocument;

  it("writes each object's status under its own apiVersion and generation", async () => {
    const { statuses, diagnostics } = await compileYaml(EDGE, { c1: RESOURCES });
    expect(diagnostics.filter((d) => d.severity === "error")).toEqual([]);
    const files = writeStatusFiles(dir, statuses, new Date("2026-11-23T10:00:00.123Z"));
    expect(files.map((f) => f.slice(dir.length + 1)).sort()).toEqual([
      "c1/gateway-shop-gw.yaml",
      "c1/httproute-shop-web.yaml",
      "c1/xbackend-shop-partner.yaml",
    ]);

    const gateway = read("gateway-shop-gw.yaml");
    expect(gateway).toMatchObject({
      apiVersion: "gateway.networking.k8s.io/v1",
      kind: "Gateway",
      metadata: { name: "gw", namespace: "shop" },
    });
    expect(gateway.status.conditions).toContainEqual(
      expect.objectContaining({ type: "Accepted", status: "True", observedGeneration: 3, lastTransitionTime: "2026-11-23T10:00:00Z" }),
    );
    expect(gateway.status.listeners[0]).toMatchObject({ name: "http", attachedRoutes: 1 });
    expect(gateway.status.listeners[0]!.conditions[0]!.observedGeneration).toBe(3);

    const route = read("httproute-shop-web.yaml");
    expect(route.apiVersion).toBe("gateway.networking.k8s.io/v1");
    expect(route.status.parents[0]).toMatchObject({
      parentRef: { group: "gateway.networking.k8s.io", kind: "Gateway", name: "gw" },
      controllerName: "kedge.dev/edge",
    });
    expect(route.status.parents[0]!.conditions).toContainEqual(
      expect.objectContaining({ type: "Accepted", status: "True", observedGeneration: 7 }),
    );

    const xbackend = read("xbackend-shop-partner.yaml");
    expect(xbackend.apiVersion).toBe("gateway.networking.x-k8s.io/v1alpha1");
    expect(xbackend.status.conditions[0]).toMatchObject({ type: "Accepted", status: "True" });
    // Written by hand, without a generation: nothing to claim to have observed.
    expect(xbackend.status.conditions[0]).not.toHaveProperty("observedGeneration");
  });
});
