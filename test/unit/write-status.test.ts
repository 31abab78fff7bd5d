/**
 * `--status-out DIR`: one status document per object, as a Gateway API controller would write it: the
 * object's own apiVersion, observedGeneration from its metadata.generation (none when it had none), route
 * parents with this controller's name, listeners with their attached routes.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { UserError } from "../../scripts/lib/user-error";
import { writeStatusFiles } from "../../scripts/report/write-status";
import { compileYaml } from "../support/compile-fixture";
import { XBACKEND_EDGE, XBACKEND_ROUTE } from "../support/xbackend-route";

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
    ancestors: (Conditioned & { ancestorRef: Record<string, string>; controllerName: string })[];
  };
}

describe("writeStatusFiles", () => {
  const dir = mkdtempSync(join(tmpdir(), "kedge-status-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const read = (file: string) => parse(readFileSync(join(dir, "c1", file), "utf8")) as StatusDocument;

  it("refuses, as a user error naming the file, a --status-out that is not a folder it can write", async () => {
    const { statuses } = await compileYaml(XBACKEND_EDGE, { c1: XBACKEND_ROUTE });
    const file = join(dir, "not-a-folder");
    writeFileSync(file, "");
    expect(() => writeStatusFiles(file, statuses)).toThrow(UserError);
    expect(() => writeStatusFiles(file, statuses)).toThrow(`--status-out: cannot write ${join(file, "c1")}/`);
  });

  it("writes each object's status under its own apiVersion and generation", async () => {
    const { statuses, diagnostics } = await compileYaml(XBACKEND_EDGE, { c1: XBACKEND_ROUTE });
    expect(diagnostics.filter((d) => d.severity === "error")).toEqual([]);
    const files = writeStatusFiles(dir, statuses, undefined, new Date("2026-11-23T10:00:00.123Z"));
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

    // XBackend: one entry per Gateway it is used through (status.ancestors, as the PR's review settled), not top-level conditions.
    const xbackend = read("xbackend-shop-partner.yaml");
    expect(xbackend.apiVersion).toBe("gateway.networking.x-k8s.io/v1alpha1");
    expect(xbackend.status.ancestors).toEqual([
      {
        ancestorRef: { group: "gateway.networking.k8s.io", kind: "Gateway", namespace: "shop", name: "gw" },
        controllerName: "kedge.dev/edge",
        conditions: [expect.objectContaining({ type: "Accepted", status: "True" })],
      },
    ]);
    expect(xbackend.status).not.toHaveProperty("conditions");
    // Written by hand, without a generation: nothing to claim to have observed.
    expect(xbackend.status.ancestors[0]!.conditions[0]).not.toHaveProperty("observedGeneration");
  });

  it("writes a backend policy's PolicyStatus: one ancestor per Gateway of its cluster its targets are used through", async () => {
    const gateway = (name: string) => `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: { name: ${name}, namespace: shop }
spec: { gatewayClassName: kedge, listeners: [{ name: http, protocol: HTTP, port: 80 }] }
`;
    const route = (name: string, gw: string, backend: string) => `apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: { name: ${name}, namespace: shop }
spec:
  parentRefs: [{ name: ${gw} }]
  rules: [{ backendRefs: [${backend}] }]
`;
    const service = (name: string) => `apiVersion: v1
kind: Service
metadata: { name: ${name}, namespace: shop }
spec: { ports: [{ port: 80 }] }
`;
    const policy = (name: string, kind: string, target: string, cookie: string) => `apiVersion: gateway.networking.k8s.io/v1alpha2
kind: BackendLBPolicy
metadata: { name: ${name}, namespace: shop }
spec:
  targetRefs: [{ group: "${kind === "Service" ? "" : "gateway.networking.k8s.io"}", kind: ${kind}, name: ${target} }]
  sessionPersistence: { sessionName: ${cookie}, type: Cookie }
`;
    const composite = (targets: string) => `apiVersion: gateway.networking.k8s.io/v1
kind: CompositeBackend
metadata: { name: shared, namespace: shop }
spec: { targetRefs: [${targets}] }
`;
    const external = `apiVersion: gateway.networking.x-k8s.io/v1alpha1
kind: XBackend
metadata: { name: ext, namespace: shop }
spec: { type: ExternalHostname, externalHostname: { hostname: api.partner.example }, port: { port: 443 }, protocol: HTTP, tls: { mode: ServerOnly } }
`;
    const toShared = "{ kind: CompositeBackend, group: gateway.networking.k8s.io, name: shared }";
    const c1 = [
      gateway("alpha"),
      gateway("beta"),
      service("cart"),
      service("idle"),
      external,
      composite("{ kind: Service, name: cart }, { group: gateway.networking.x-k8s.io, kind: XBackend, name: ext }"),
      route("to-cart-alpha", "alpha", "{ name: cart, port: 80 }"),
      route("to-cart-beta", "beta", "{ name: cart, port: 80 }"),
      route("to-shared-beta", "beta", toShared),
      policy("cart-sticky", "Service", "cart", "cart"),
      policy("idle-sticky", "Service", "idle", "idle"),
      policy("shared-sticky", "CompositeBackend", "shared", "shared"),
    ].join("---\n");
    // c2 uses the aggregate through its own Gateway: not an ancestor a status in c1 can name.
    const c2 = [gateway("gamma"), service("cart"), composite("{ kind: Service, name: cart }"), route("to-shared", "gamma", toShared)].join(
      "---\n",
    );
    const edge = XBACKEND_EDGE.replace("clusters: [{ name: c1 }]", "clusters: [{ name: c1 }, { name: c2 }]");
    const { statuses, diagnostics } = await compileYaml(edge, { c1, c2 });
    expect(diagnostics.filter((d) => d.severity === "error")).toEqual([]);
    writeStatusFiles(dir, statuses);

    interface PolicyDocument {
      apiVersion: string;
      status: { ancestors: (Conditioned & { ancestorRef: Record<string, string>; controllerName: string })[]; conditions?: unknown };
    }
    const policyStatus = (name: string) =>
      parse(readFileSync(join(dir, "c1", `backendlbpolicy-shop-${name}.yaml`), "utf8")) as PolicyDocument;
    const ancestor = (name: string) => ({
      ancestorRef: { group: "gateway.networking.k8s.io", kind: "Gateway", namespace: "shop", name },
      controllerName: "kedge.dev/edge",
      conditions: [expect.objectContaining({ type: "Accepted", status: "True", reason: "Accepted" })],
    });

    const cart = policyStatus("cart-sticky");
    expect(cart.apiVersion).toBe("gateway.networking.k8s.io/v1alpha2");
    expect(cart.status.ancestors).toEqual([ancestor("alpha"), ancestor("beta")]);
    expect(cart.status).not.toHaveProperty("conditions");

    // The aggregate is used through beta in c1 and gamma in c2; a status in c1 can name only beta.
    expect(policyStatus("shared-sticky").status.ancestors).toEqual([ancestor("beta")]);
    // An XBackend reached through the aggregate is used through the same Gateway.
    const ext = parse(readFileSync(join(dir, "c1", "xbackend-shop-ext.yaml"), "utf8")) as StatusDocument;
    expect(ext.status.ancestors.map((p) => p.ancestorRef.name)).toEqual(["beta"]);

    // Its target is used by no route: no Gateway to name. A PolicyStatus has ancestors only (the API
    // server would prune anything else), so its verdict is the report's.
    const idle = policyStatus("idle-sticky");
    expect(idle.status.ancestors).toEqual([]);
    expect(idle.status).not.toHaveProperty("conditions");
  });
});
