import { dispatch } from "./dispatch";
import { describe, inject, it } from "vitest";
import { compileYaml } from "./compile";
import { endpointSlice, gatewayAndRoute, service, yamlDocs } from "../support/manifests";
import { publishTable } from "./seed-table";

/** Three clusters, each serving the CompositeBackend `web` from one loopback origin (v1, v2, v3). */
const edge = (minHealthyEndpoints: number) => `
apiVersion: kedge.dev/v1alpha1
kind: EdgeConfig
metadata: { name: test }
spec:
  gatewayClassName: kedge
  locality: { minHealthyEndpoints: ${minHealthyEndpoints} }
  egress:
    allowedHostnames: [partner.example]
    clientCertificates: { app/partner-client: PARTNER_MTLS }
  clusters:
    - { name: iad, locality: { continent: NA, countries: [US], colos: [IAD] } }
    - { name: sfo, locality: { continent: NA, countries: [US], colos: [SFO] } }
    - { name: dub, locality: { continent: EU, countries: [IE], colos: [DUB] } }
`;

const GATEWAY_AND_ROUTE = `${gatewayAndRoute({
  namespace: "app",
  rules: `    - matches: [{ path: { type: PathPrefix, value: /partner } }]
      backendRefs: [{ group: gateway.networking.x-k8s.io, kind: XBackend, name: partner }]
    - backendRefs: [{ group: gateway.networking.k8s.io, kind: CompositeBackend, name: web, port: 8080 }]`,
})}---
apiVersion: gateway.networking.x-k8s.io/v1alpha1
kind: XBackend
metadata: { name: partner, namespace: app }
spec:
  type: ExternalHostname
  externalHostname: { hostname: partner.example }
  port: { port: 443 }
  tls: { mode: ClientAndServer, clientCertificateRef: { name: partner-client } }
`;

const member = (port: number, ready = true) =>
  yamlDocs(
    `apiVersion: gateway.networking.k8s.io/v1
kind: CompositeBackend
metadata: { name: web, namespace: app }
spec: { targetRefs: [{ kind: Service, name: web }] }
`,
    service("web", "app"),
    endpointSlice({ service: "web", name: "web-1", namespace: "app", port, conditions: `{ ready: ${ready} }` }),
  );

async function seed(minHealthy: number, ready: { iad?: boolean } = {}) {
  const ports = inject("originPorts");
  const { table } = await compileYaml(edge(minHealthy), {
    iad: GATEWAY_AND_ROUTE + "---\n" + member(ports.v1, ready.iad ?? true),
    sfo: member(ports.v2),
    dub: member(ports.v3),
  });
  await publishTable(table);
}

const WHERE = {
  iad: { colo: "IAD", country: "US", continent: "NA" },
  ord: { colo: "ORD", country: "US", continent: "NA" },
  lhr: { colo: "LHR", country: "GB", continent: "EU" },
  syd: { colo: "SYD", country: "AU", continent: "OC" },
} as const;

/** Which origins answered 30 requests from a location (`infra-backend-v1` = iad, v2 = sfo, v3 = dub). */
async function origins(cf?: Record<string, string>): Promise<string[]> {
  const seen = new Set<string>();
  for (let i = 0; i < 30; i++) {
    const response = await dispatch(new Request("http://web.example/", cf ? { cf } : {}));
    const body = (await response.json()) as { endpoint?: string; error?: string };
    seen.add(body.endpoint ?? `${response.status} ${body.error}`);
  }
  return [...seen].sort();
}

describe("locality preference (request.cf)", { timeout: 30_000 }, () => {
  it("serves each request from the nearest clusters: colo, then country, then continent", async ({ expect }) => {
    await seed(1);
    expect(await origins(WHERE.iad)).toEqual(["infra-backend-v1"]);
    expect(await origins(WHERE.ord)).toEqual(["infra-backend-v1", "infra-backend-v2"]);
    expect(await origins(WHERE.lhr)).toEqual(["infra-backend-v3"]);
  });

  it("uses every cluster when the request's continent has none, or its location is unknown", async ({ expect }) => {
    await seed(1);
    expect(await origins(WHERE.syd)).toEqual(["infra-backend-v1", "infra-backend-v2", "infra-backend-v3"]);
    expect(await origins()).toEqual(["infra-backend-v1", "infra-backend-v2", "infra-backend-v3"]);
  });

  it("fails over to the next nearest when the nearest has no ready endpoint", async ({ expect }) => {
    await seed(1, { iad: false });
    expect(await origins(WHERE.iad)).toEqual(["infra-backend-v2"]);
  });

  it("widens the pool while the nearer tiers have fewer ready endpoints than minHealthyEndpoints", async ({ expect }) => {
    await seed(2);
    // iad alone has 1 ready endpoint: with a threshold of 2 it shares with sfo (same country).
    expect(await origins(WHERE.iad)).toEqual(["infra-backend-v1", "infra-backend-v2"]);
    await seed(3);
    expect(await origins(WHERE.iad)).toEqual(["infra-backend-v1", "infra-backend-v2", "infra-backend-v3"]);
  });
});

describe("XBackend with a client certificate", () => {
  it("is fetched through the mTLS certificate binding its clientCertificateRef maps to", async ({ expect }) => {
    await seed(1);
    const response = await dispatch(new Request("http://web.example/partner/quote?id=7"));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ via: "PARTNER_MTLS", url: "https://partner.example/partner/quote?id=7" });
  });
});
