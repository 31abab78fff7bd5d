/**
 * What a Service's owner says about how to speak to it (GEP-1911 appProtocol, GEP-1897 BackendTLSPolicy) is
 * honoured where a Worker can, and makes the backendRef invalid (500, ResolvedRefs=False) where it cannot.
 */
import { describe, it } from "vitest";
import { compileYaml } from "../support/compile-fixture";
import { edgeConfig, endpointSlice, gatewayAndRoute, yamlDocs } from "../support/manifests";
import type { CompileResult } from "../../src/compile/compile-route-table";

const route = (backendRefs = "[{ name: web, port: 8443 }, { name: other, port: 80 }]") =>
  gatewayAndRoute({ namespace: "shop", rules: `    - backendRefs: ${backendRefs}` });

/** Service `name` with the ports given as flow YAML, and one endpoint on each port. */
const service = (name: string, ports: string) => `apiVersion: v1
kind: Service
metadata: { name: ${name}, namespace: shop }
spec: { ports: ${ports} }
`;

const WEB = yamlDocs(
  service("web", "[{ name: https, port: 8443, appProtocol: APP }, { name: admin, port: 9443 }]"),
  endpointSlice({ name: "web-1", namespace: "shop", service: "web", addresses: ["10.0.0.1"], port: 8443, portName: "https" }),
  endpointSlice({ name: "web-2", namespace: "shop", service: "web", addresses: ["10.0.0.1"], port: 9443, portName: "admin" }),
  service("other", "[{ name: http, port: 80 }]"),
  endpointSlice({ name: "other-1", namespace: "shop", service: "other", addresses: ["10.0.0.2"], port: 80, portName: "http" }),
);

const TLS_POLICY = (validation: string, targetRef = "{ group: '', kind: Service, name: web }") => `apiVersion: gateway.networking.k8s.io/v1
kind: BackendTLSPolicy
metadata: { name: web-tls, namespace: shop }
spec:
  targetRefs: [${targetRef}]
  validation: ${validation}
`;

const compile = (app: string, ...more: string[]) =>
  compileYaml(edgeConfig("t"), { c1: yamlDocs(route(), WEB.replace("APP", app), ...more) });

const routeConditions = (r: CompileResult) => r.statuses.find((s) => s.object.kind === "HTTPRoute")?.parents?.[0]?.conditions;
const webEndpoints = (r: CompileResult) => Object.values(r.table.backends).find((b) => b.source.name === "web")?.endpoints;

describe("Service appProtocol", () => {
  it("https and kubernetes.io/wss call the endpoints over TLS; http and kubernetes.io/ws over HTTP", async ({ expect }) => {
    for (const [app, scheme] of [
      ["https", "https"],
      ["kubernetes.io/wss", "https"],
      ["http", "http"],
      ["kubernetes.io/ws", "http"],
    ]) {
      const result = await compile(app!);
      expect(
        webEndpoints(result)?.map((e) => e.scheme),
        app,
      ).toEqual([scheme]);
      expect(
        result.diagnostics.filter((d) => d.severity === "error"),
        app,
      ).toEqual([]);
    }
  });

  it("kubernetes.io/h2c is ResolvedRefs=False UnsupportedProtocol: that share answers 500, the other ref still serves", async ({
    expect,
  }) => {
    const result = await compile("kubernetes.io/h2c");
    const [web, other] = result.table.rules[0]!.backendRefs;
    expect(web).toMatchObject({ weight: 1, invalid: { reason: "UnsupportedProtocol" } });
    expect(web!.invalid!.message).toBe(
      "Service shop/web port 8443 has appProtocol kubernetes.io/h2c: cleartext HTTP/2 (h2c), which a Worker's fetch cannot speak",
    );
    expect(other?.backend).toBeDefined();
    expect(routeConditions(result)).toContainEqual(
      expect.objectContaining({ type: "ResolvedRefs", status: "False", reason: "UnsupportedProtocol" }),
    );
    expect(result.diagnostics).toContainEqual(
      expect.objectContaining({ severity: "error", reason: "UnsupportedProtocol", field: "spec.rules[0].backendRefs[0]" }),
    );
  });

  it("an appProtocol the edge does not know is refused rather than guessed", async ({ expect }) => {
    const result = await compile("example.com/custom");
    expect(result.table.rules[0]!.backendRefs[0]!.invalid?.message).toContain(
      "has appProtocol example.com/custom: a protocol the edge does not know",
    );
  });
});

describe("BackendTLSPolicy", () => {
  it("with the system roots: the endpoints are called over TLS under the policy's hostname; the policy is Accepted", async ({ expect }) => {
    const result = await compile("http", TLS_POLICY("{ hostname: web.shop.example.com, wellKnownCACertificates: System }"));
    expect(webEndpoints(result)).toEqual([
      expect.objectContaining({ scheme: "https", serverName: "web.shop.example.com", host: "10.0.0.1", port: 8443 }),
    ]);
    const policy = result.statuses.find((s) => s.object.kind === "BackendTLSPolicy");
    expect(policy?.conditions).toContainEqual(expect.objectContaining({ type: "Accepted", status: "True" }));
  });

  it("sectionName covers that port only", async ({ expect }) => {
    const policy = TLS_POLICY(
      "{ hostname: admin.example.com, wellKnownCACertificates: System }",
      "{ group: '', kind: Service, name: web, sectionName: admin }",
    );
    const result = await compileYaml(edgeConfig("t"), {
      c1: yamlDocs(route("[{ name: web, port: 8443 }, { name: web, port: 9443 }]"), WEB.replace("APP", "http"), policy),
    });
    const byPort = Object.values(result.table.backends).map((b) => [b.port, b.endpoints[0]?.scheme, b.endpoints[0]?.serverName]);
    expect(byPort).toEqual([
      [8443, "http", undefined],
      [9443, "https", "admin.example.com"],
    ]);
  });

  it("a CA bundle the edge cannot use: the policy is not Accepted, and every ref to the Service answers 500, never plain HTTP", async ({
    expect,
  }) => {
    const result = await compile(
      "http",
      TLS_POLICY("{ hostname: web.shop.example.com, caCertificateRefs: [{ group: '', kind: ConfigMap, name: web-ca }] }"),
    );
    expect(result.table.rules[0]!.backendRefs[0]).toMatchObject({ invalid: { reason: "InvalidBackendTLSPolicy" } });
    expect(result.table.rules[0]!.backendRefs[0]!.invalid!.message).toContain(
      "Service shop/web port 8443 is under BackendTLSPolicy c1/shop/web-tls, which the edge cannot meet: caCertificateRefs",
    );
    expect(Object.values(result.table.backends).map((b) => b.source.name)).toEqual(["other"]);
    const policy = result.statuses.find((s) => s.object.kind === "BackendTLSPolicy");
    expect(policy?.conditions.map((c) => `${c.type}=${c.status} ${c.reason}`)).toEqual([
      "Accepted=False NoValidCACertificate",
      "ResolvedRefs=False InvalidCACertificateRef",
    ]);
    expect(result.diagnostics).toContainEqual(
      expect.objectContaining({ severity: "error", object: expect.objectContaining({ kind: "BackendTLSPolicy" }) }),
    );
  });

  it("subject names other than the hostname are refused the same way", async ({ expect }) => {
    const result = await compile(
      "http",
      TLS_POLICY(
        "{ hostname: web.example.com, wellKnownCACertificates: System, subjectAltNames: [{ type: URI, uri: 'spiffe://cluster.local/ns/shop/sa/web' }] }",
      ),
    );
    expect(result.table.rules[0]!.backendRefs[0]!.invalid?.reason).toBe("InvalidBackendTLSPolicy");
  });
});
