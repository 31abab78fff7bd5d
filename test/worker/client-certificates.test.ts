/**
 * Gateway spec.tls.frontend at the edge: Cloudflare verifies the client certificate, the Worker reads the
 * verdict from request.cf.tlsClientAuth and refuses an HTTPS request without a verified one (403).
 */
import { describe, inject, it } from "vitest";
import { EDGE_YAML, infraYaml } from "../support/conformance-infra";
import { compileYaml } from "./compile";
import { dispatch } from "./dispatch";
import { seedYaml } from "./seed-table";

const gateway = (frontend: string) => `
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: { name: mtls, namespace: gateway-conformance-infra }
spec:
  gatewayClassName: kedge
  listeners:
    - { name: https, protocol: HTTPS, port: 443, hostname: api.example.com, tls: { certificateRefs: [{ name: api-cert }] } }
    - { name: https-alt, protocol: HTTPS, port: 8443, hostname: api.example.com, tls: { certificateRefs: [{ name: api-cert }] } }
    - { name: http, protocol: HTTP, port: 80, hostname: api.example.com }
  tls:
    frontend:
${frontend}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: { name: api, namespace: gateway-conformance-infra }
spec:
  parentRefs: [{ name: mtls }]
  rules: [{ backendRefs: [{ name: infra-backend-v1, port: 8080 }] }]
`;

const DEFAULT_ONLY = `      default:
        validation: { caCertificateRefs: [{ group: "", kind: ConfigMap, name: client-ca }] }
      perPort:
        - port: 8443
          tls: { validation: { mode: AllowInsecureFallback, caCertificateRefs: [{ group: "", kind: ConfigMap, name: client-ca }] } }`;

const VERIFIED = { certPresented: "1", certVerified: "SUCCESS" };

const send = (url: string, tlsClientAuth?: object) => dispatch(new Request(url, tlsClientAuth ? { cf: { tlsClientAuth } } : {}));

describe("client certificate validation (Gateway spec.tls.frontend)", () => {
  it("AllowValidOnly: an HTTPS request reaches the backend only with a certificate Cloudflare verified", async ({ expect }) => {
    await seedYaml(`${infraYaml(inject("originPorts"))}---${gateway(DEFAULT_ONLY)}`);
    const verified = await send("https://api.example.com/", VERIFIED);
    expect(verified.status).toBe(200);
    expect(((await verified.json()) as { endpoint: string }).endpoint).toBe("infra-backend-v1");
    for (const auth of [
      undefined,
      { certPresented: "0", certVerified: "NONE" },
      { certPresented: "1", certVerified: "FAILED:self signed certificate" },
    ]) {
      const refused = await send("https://api.example.com/", auth);
      expect(refused.status, JSON.stringify(auth)).toBe(403);
      expect(await refused.json()).toMatchObject({ error: "CLIENT_CERTIFICATE_REQUIRED" });
    }
  });

  it("a port under AllowInsecureFallback, and the HTTP listener, take requests without one", async ({ expect }) => {
    await seedYaml(`${infraYaml(inject("originPorts"))}---${gateway(DEFAULT_ONLY)}`);
    expect((await send("https://api.example.com:8443/")).status).toBe(200);
    expect((await send("http://api.example.com/")).status).toBe(200);
  });

  it("ports naming different CAs are an error: Cloudflare's verdict does not say which CA signed", async ({ expect }) => {
    const differing = DEFAULT_ONLY.replace(
      'mode: AllowInsecureFallback, caCertificateRefs: [{ group: "", kind: ConfigMap, name: client-ca }]',
      'caCertificateRefs: [{ group: "", kind: ConfigMap, name: partner-ca }]',
    );
    expect(differing).not.toBe(DEFAULT_ONLY);
    const { diagnostics } = await compileYaml(EDGE_YAML, { c1: `${infraYaml(inject("originPorts"))}---${gateway(differing)}` });
    expect(diagnostics).toContainEqual(
      expect.objectContaining({
        severity: "error",
        field: "spec.tls.frontend",
        message: expect.stringContaining("HTTPS ports name different caCertificateRefs"),
      }),
    );
  });
});
