import { describe, it } from "vitest";
import { compileXBackend } from "../../src/compile/backends/xbackends";
import { parseEdgeConfig } from "../../src/compile/input/edge-config";
import { objectProblems } from "../../src/compile/input/schema/validate-objects";
import type { Manifest } from "../../src/gateway-api/manifest";
import { compileYaml } from "../support/compile-fixture";
import { endpointSlice, gatewayAndRoute, service, yamlDocs } from "../support/manifests";
import { unreachableEndpoints } from "../../scripts/checks/unreachable-endpoints";

const EDGE = `
apiVersion: kedge.dev/v1alpha1
kind: EdgeConfig
spec:
  gatewayClassName: kedge
  clusters:
    - { name: east, weight: 2 }
    - { name: west, weight: 1 }
    - { name: south, weight: 1 }
`;

/** Gateway and route `web` in namespace app, whose one rule has the given backendRefs. */
const route = (backendRefs: string) => gatewayAndRoute({ namespace: "app", rules: `    - backendRefs: [${backendRefs}]` });

/** A Service `name` with one EndpointSlice per port (ready unless listed in `unready`). */
const backend = (name: string, ports: number[], unready: number[] = []) =>
  yamlDocs(
    service(name, "app"),
    ...ports.map((port) =>
      endpointSlice({
        service: name,
        name: `${name}-${port}`,
        namespace: "app",
        port,
        conditions: `{ ready: ${!unready.includes(port)} }`,
      }),
    ),
  );

const composite = (name: string, targets: string, apiVersion = "gateway.networking.k8s.io/v1") => `
apiVersion: ${apiVersion}
kind: CompositeBackend
metadata: { name: ${name}, namespace: app }
spec:
  targetRefs: [${targets}]
`;

const COMPOSITE_REF = "{ group: gateway.networking.k8s.io, kind: CompositeBackend, name: web, port: 8080 }";

describe("CompositeBackend", () => {
  it("is the union of same-named CompositeBackends across clusters, weighted by cluster", async ({ expect }) => {
    const { table, statuses } = await compileYaml(EDGE, {
      east: [route(COMPOSITE_REF), composite("web", "{ kind: Service, name: web }"), backend("web", [1001, 1002])].join("---\n"),
      west: [composite("web", "{ kind: Service, name: web }", "gateway.networking.x-k8s.io/v1alpha1"), backend("web", [2001], [2001])].join(
        "---\n",
      ),
      south: [composite("web", "{ group: v1, kind: Service, name: web }"), backend("web", [3001])].join("---\n"),
    });
    const union = table.backends["CompositeBackend/app/web:8080"];
    expect(union?.endpoints.map((e) => [e.id, e.weight, e.ready])).toEqual([
      ["east/127.0.0.1:1001", 2, true],
      ["east/127.0.0.1:1002", 2, true],
      ["west/127.0.0.1:2001", 1, false],
      ["south/127.0.0.1:3001", 1, true],
    ]);
    const status = statuses.find((s) => s.object.kind === "CompositeBackend" && s.object.cluster === "west");
    expect(status?.conditions[0]).toMatchObject({ type: "Accepted", status: "True" });
    expect(status?.aggregate?.clusters).toEqual(["east", "west", "south"]);
  });

  it("drops a cluster whose CompositeBackend is removed; a Service ref stays in its own cluster", async ({ expect }) => {
    const { table } = await compileYaml(EDGE, {
      east: [
        route(`${COMPOSITE_REF}, { name: web, port: 8080 }`),
        composite("web", "{ kind: Service, name: web }"),
        backend("web", [1001]),
      ].join("---\n"),
      west: backend("web", [2001]),
      south: [composite("web", "{ kind: Service, name: web }"), backend("web", [3001])].join("---\n"),
    });
    expect(table.backends["CompositeBackend/app/web:8080"]?.endpoints.map((e) => e.cluster)).toEqual(["east", "south"]);
    expect(table.backends["Service/east/app/web:8080"]?.endpoints.map((e) => e.id)).toEqual(["east/127.0.0.1:1001"]);
  });

  it("rejects a CompositeBackend that targets a CompositeBackend or an unsupported kind; the others still serve", async ({ expect }) => {
    const { table, statuses, diagnostics } = await compileYaml(EDGE, {
      east: [route(COMPOSITE_REF), composite("web", "{ kind: Service, name: web }"), backend("web", [1001])].join("---\n"),
      west: [composite("web", "{ group: gateway.networking.k8s.io, kind: CompositeBackend, name: other }"), backend("web", [2001])].join(
        "---\n",
      ),
      south: [composite("web", "{ group: inference.networking.k8s.io, kind: InferencePool, name: pool }"), backend("web", [3001])].join(
        "---\n",
      ),
    });
    expect(table.backends["CompositeBackend/app/web:8080"]?.endpoints.map((e) => e.cluster)).toEqual(["east"]);
    const west = statuses.find((s) => s.object.kind === "CompositeBackend" && s.object.cluster === "west");
    expect(west?.conditions).toEqual([
      expect.objectContaining({
        type: "Accepted",
        status: "False",
        reason: "InvalidKind",
        message: expect.stringContaining("another CompositeBackend"),
      }),
    ]);
    const south = statuses.find((s) => s.object.kind === "CompositeBackend" && s.object.cluster === "south");
    expect(south?.conditions[0]).toMatchObject({ status: "False", reason: "InvalidKind" });
    expect(diagnostics).toContainEqual(
      expect.objectContaining({
        severity: "error",
        field: "spec.targetRefs[0].kind",
        object: expect.objectContaining({ cluster: "west" }),
      }),
    );
  });

  it("a route naming an unknown CompositeBackend gets ResolvedRefs=False BackendNotFound and keeps its share as 500s", async ({
    expect,
  }) => {
    const { table, statuses } = await compileYaml(EDGE, { east: [route(COMPOSITE_REF)].join("---\n") });
    expect(table.rules[0]?.backendRefs[0]).toMatchObject({ weight: 1, invalid: { reason: "BackendNotFound" } });
    const parent = statuses.find((s) => s.object.kind === "HTTPRoute")?.parents?.[0];
    expect(parent?.conditions).toContainEqual(
      expect.objectContaining({ type: "ResolvedRefs", status: "False", reason: "BackendNotFound" }),
    );
  });

  it("a cross-namespace CompositeBackend needs a ReferenceGrant", async ({ expect }) => {
    const ref = "{ group: gateway.networking.k8s.io, kind: CompositeBackend, name: web, namespace: shared, port: 8080 }";
    const { table } = await compileYaml(EDGE, { east: [route(ref)].join("---\n") });
    expect(table.rules[0]?.backendRefs[0]?.invalid?.reason).toBe("RefNotPermitted");
  });
});

describe("backends without endpoints", () => {
  it("a used Service with no endpoint that takes traffic is a NoReadyEndpoints warning; one ready endpoint anywhere is enough", async ({
    expect,
  }) => {
    const { diagnostics } = await compileYaml(EDGE, {
      east: [route("{ name: idle, port: 8080 }, { name: web, port: 8080 }"), backend("idle", [1001], [1001]), backend("web", [1002])].join(
        "---\n",
      ),
    });
    expect(diagnostics.filter((d) => d.reason === "NoReadyEndpoints").map((d) => [d.severity, d.object.name, d.message])).toEqual([
      ["warning", "idle", "Service app/idle (port 8080) has no ready endpoint; requests for it answer 503"],
    ]);
  });
});

describe("ServiceImport", () => {
  const EXPORT = `
apiVersion: multicluster.x-k8s.io/v1alpha1
kind: ServiceExport
metadata: { name: web, namespace: app }
`;
  it("is the union of the clusters that export the Service", async ({ expect }) => {
    const { table } = await compileYaml(EDGE, {
      east: [route("{ group: multicluster.x-k8s.io, kind: ServiceImport, name: web, port: 8080 }"), backend("web", [1001])].join("---\n"),
      west: [EXPORT, backend("web", [2001])].join("---\n"),
      south: [EXPORT, backend("web", [3001])].join("---\n"),
    });
    // east has the Service but no ServiceExport: not part of the ClusterSet's service.
    expect(table.backends["ServiceImport/app/web:8080"]?.endpoints.map((e) => e.id)).toEqual([
      "west/127.0.0.1:2001",
      "south/127.0.0.1:3001",
    ]);
  });

  it("with no exporting cluster is BackendNotFound", async ({ expect }) => {
    const { table } = await compileYaml(EDGE, {
      east: [route("{ group: multicluster.x-k8s.io, kind: ServiceImport, name: web, port: 8080 }"), backend("web", [1001])].join("---\n"),
    });
    expect(table.rules[0]?.backendRefs[0]?.invalid).toMatchObject({
      reason: "BackendNotFound",
      message: expect.stringContaining("exports"),
    });
  });
});

describe("XBackend", () => {
  const edge = parseEdgeConfig(
    {
      apiVersion: "kedge.dev/v1alpha1",
      kind: "EdgeConfig",
      spec: {
        gatewayClassName: "kedge",
        clusters: [{ name: "east" }],
        egress: {
          allowedHostnames: ["api.partner.example", "*.vendor.example"],
          clientCertificates: { "app/partner-client": "PARTNER_MTLS" },
        },
      },
    },
    "kedge.yaml",
  );
  const xb = (spec: Record<string, unknown>): Manifest => ({
    cluster: "east",
    file: "x.yaml",
    line: 1,
    apiVersion: "gateway.networking.x-k8s.io/v1alpha1",
    kind: "XBackend",
    metadata: { name: "x", namespace: "app", labels: {} },
    spec: { type: "ExternalHostname", externalHostname: { hostname: "api.partner.example" }, port: { port: 443 }, ...spec },
    status: {},
    raw: {},
  });

  it.for([
    ["10.0.0.1", "UnsupportedValue"],
    // What a URL parser (and so fetch) reads as 127.0.0.1: never past the IP-literal rule or allowLocalhost.
    ["127.1", "UnsupportedValue"],
    ["2130706433", "UnsupportedValue"],
    ["0x7f000001", "UnsupportedValue"],
    ["0177.0.0.1", "UnsupportedValue"],
    ["2001:db8::1", "UnsupportedValue"],
    ["web.app.svc.cluster.local", "UnsupportedValue"],
    ["localhost", "RefNotPermitted"],
    ["evil.example", "RefNotPermitted"],
  ])("rejects hostname %s with %s", ([hostname, reason], { expect }) => {
    const result = compileXBackend(xb({ externalHostname: { hostname } }), edge.egress);
    expect(result).toMatchObject({ ok: false, problem: { field: "spec.externalHostname.hostname", reason } });
  });

  it("accepts allowed hostnames, including wildcard entries", ({ expect }) => {
    expect(compileXBackend(xb({ externalHostname: { hostname: "eu.vendor.example" } }), edge.egress).ok).toBe(true);
  });

  it.for(["HTTP2", "H2C", "TCP"])("refuses protocol %s with UnsupportedProtocol", (protocol, { expect }) => {
    expect(compileXBackend(xb({ protocol }), edge.egress)).toMatchObject({ ok: false, problem: { reason: "UnsupportedProtocol" } });
  });

  it("maps TLS modes to scheme and client certificates to mTLS bindings", ({ expect }) => {
    expect(compileXBackend(xb({ protocol: "MCP", tls: { mode: "None" } }), edge.egress)).toMatchObject({
      ok: true,
      target: { scheme: "http" },
    });
    expect(
      compileXBackend(
        xb({ tls: { mode: "ServerOnly", validation: { hostname: "api.partner.example", wellKnownCACertificates: "System" } } }),
        edge.egress,
      ),
    ).toMatchObject({
      ok: true,
      target: { scheme: "https", port: 443 },
    });
    // A validation needs its hostname and exactly one source of trust (the API's own rules).
    for (const validation of [{ wellKnownCACertificates: "System" }, { hostname: "api.partner.example" }])
      expect(compileXBackend(xb({ tls: { mode: "ServerOnly", validation } }), edge.egress)).toMatchObject({
        ok: false,
        problem: { reason: "UnsupportedValue" },
      });
    const mtls = compileXBackend(xb({ tls: { mode: "ClientAndServer", clientCertificateRef: { name: "partner-client" } } }), edge.egress);
    expect(mtls).toMatchObject({ ok: true, target: { scheme: "https", mtlsBinding: "PARTNER_MTLS" } });
    const unmapped = compileXBackend(xb({ tls: { mode: "ClientAndServer", clientCertificateRef: { name: "other" } } }), edge.egress);
    expect(unmapped).toMatchObject({
      ok: false,
      problem: { reason: "InvalidClientCertificateRef", message: expect.stringContaining("clientCertificates") },
    });
    const ca = compileXBackend(
      xb({ tls: { mode: "ServerOnly", validation: { hostname: "api.partner.example", caCertificateRefs: [{ name: "ca" }] } } }),
      edge.egress,
    );
    expect(ca).toMatchObject({ ok: false, problem: { field: "spec.tls.validation.caCertificateRefs" } });
  });

  it("refuses a hostname with capitals: a PreciseHostname is lower case", ({ expect }) => {
    expect(compileXBackend(xb({ externalHostname: { hostname: "API.Partner.example" } }), edge.egress)).toMatchObject({
      ok: false,
      problem: { field: "spec.externalHostname.hostname", message: expect.stringContaining("must be lower case (api.partner.example)") },
    });
  });

  it("says what an IP address in disguise reads as, even with allowLocalhost", ({ expect }) => {
    const loose = { ...edge.egress, allowLocalhost: true, allowedHostnames: undefined };
    expect(compileXBackend(xb({ externalHostname: { hostname: "0x7f000001" } }), loose)).toMatchObject({
      ok: false,
      problem: { message: expect.stringContaining("a URL parser reads it as the IP address 127.0.0.1") },
    });
  });

  it("a client certificate of another namespace needs a ReferenceGrant there", ({ expect }) => {
    const other = { ...edge.egress, clientCertificates: { "security/partner-client": "PARTNER_MTLS" } };
    const ref = { tls: { mode: "ClientAndServer", clientCertificateRef: { name: "partner-client", namespace: "security" } } };
    expect(compileXBackend(xb(ref), other)).toMatchObject({
      ok: false,
      problem: { field: "spec.tls.clientCertificateRef.namespace", reason: "RefNotPermitted" },
    });
    const granted = (x: Manifest, ns: string, name: string) =>
      x.metadata.namespace === "app" && ns === "security" && name === "partner-client";
    expect(compileXBackend(xb(ref), other, granted)).toMatchObject({ ok: true, target: { mtlsBinding: "PARTNER_MTLS" } });
  });

  it("reads the port as the PR wrote it (port.port) and as its later revision does (port.number)", ({ expect }) => {
    expect(compileXBackend(xb({ port: { number: 8443 } }), edge.egress)).toMatchObject({ ok: true, target: { port: 8443 } });
    // Out of range, it is refused by the schema stage before any translator reads it.
    const outOfRange = xb({ port: { number: 0 } });
    expect(objectProblems({ ...outOfRange, raw: { spec: outOfRange.spec } })).toMatchObject([{ path: ["spec", "port", "number"] }]);
    // A port may carry a name (empty or a DNS label): only a label.
    const named = xb({ port: { name: "https", port: 443 } });
    expect(objectProblems({ ...named, raw: { spec: named.spec } })).toEqual([]);
    expect(compileXBackend(named, edge.egress)).toMatchObject({ ok: true, target: { port: 443 } });
    const badName = xb({ port: { name: "Not_A_Label", port: 443 } });
    expect(objectProblems({ ...badName, raw: { spec: badName.spec } })).toMatchObject([{ path: ["spec", "port", "name"] }]);
  });

  it("a route reaching a rejected XBackend reports why, and a cross-namespace XBackend is not permitted", async ({ expect }) => {
    const x = `
apiVersion: gateway.networking.x-k8s.io/v1alpha1
kind: XBackend
metadata: { name: ip, namespace: app }
spec: { type: ExternalHostname, externalHostname: { hostname: 192.168.1.10 }, port: { port: 80 } }
`;
    const { table, statuses } = await compileYaml(EDGE, {
      east: [
        route(
          "{ group: gateway.networking.x-k8s.io, kind: XBackend, name: ip }, { group: gateway.networking.x-k8s.io, kind: XBackend, name: ip, namespace: other }",
        ),
        x,
      ].join("---\n"),
    });
    expect(statuses.find((s) => s.object.kind === "XBackend")?.conditions[0]).toMatchObject({
      status: "False",
      reason: "UnsupportedValue",
      message: expect.stringContaining("must not be an IP address"),
    });
    expect(table.rules[0]?.backendRefs.map((r) => r.invalid?.reason)).toEqual(["BackendNotFound", "RefNotPermitted"]);
  });
});

describe("remote push reachability", () => {
  it("refuses loopback endpoints and XBackends on localhost, which a deployed Worker cannot reach", async ({ expect }) => {
    const edge = EDGE.replace("spec:", "spec:\n  egress: { allowLocalhost: true }");
    const x = `
apiVersion: gateway.networking.x-k8s.io/v1alpha1
kind: XBackend
metadata: { name: local, namespace: app }
spec: { type: ExternalHostname, externalHostname: { hostname: localhost }, port: { port: 9000 } }
`;
    const ref = "{ name: web, port: 8080 }, { group: gateway.networking.x-k8s.io, kind: XBackend, name: local }";
    const { table } = await compileYaml(edge, { east: [route(ref), backend("web", [1001]), x].join("---\n") });
    expect(unreachableEndpoints(table).map((u) => [u.severity, u.cluster, u.endpoints])).toEqual([
      ["error", undefined, ["east/localhost:9000"]],
      ["error", "east", ["east/127.0.0.1:1001"]],
    ]);
  });
});
