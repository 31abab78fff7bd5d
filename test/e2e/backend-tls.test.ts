/**
 * TLS to a cluster's endpoints, as the Service's owner asks (BackendTLSPolicy, appProtocol https), seen from
 * the endpoint: the real Worker in workerd opens TLS, names the policy's hostname as SNI, and never falls
 * back to plain HTTP when the certificate is not one the public roots vouch for.
 */
import { afterAll, beforeAll, describe, it } from "vitest";
import type { LocalGateway } from "../../scripts/dev/local-gateway";
import { listenForHellos, type HelloListener } from "../support/tls-hello-listener";
import { edgeConfig, endpointSlice, gatewayAndRoute, yamlDocs } from "../support/manifests";
import { startGateway, tearDown, Workspace } from "./harness";

const service = (name: string, appProtocol?: string) => `apiVersion: v1
kind: Service
metadata: { name: ${name}, namespace: shop }
spec: { ports: [{ name: http, port: 8443${appProtocol ? `, appProtocol: ${appProtocol}` : ""} }] }
`;

function app(port: number): string {
  const routes = gatewayAndRoute({
    namespace: "shop",
    hostname: "shop.example.com",
    rules: `    - matches: [{ path: { type: PathPrefix, value: /policy } }]
      backendRefs: [{ name: under-policy, port: 8443 }]
    - matches: [{ path: { type: PathPrefix, value: /app-protocol } }]
      backendRefs: [{ name: app-protocol-https, port: 8443 }]`,
  });
  const policy = `apiVersion: gateway.networking.k8s.io/v1
kind: BackendTLSPolicy
metadata: { name: under-policy, namespace: shop }
spec:
  targetRefs: [{ group: "", kind: Service, name: under-policy }]
  validation: { hostname: localhost, wellKnownCACertificates: System }
`;
  return yamlDocs(
    routes,
    policy,
    service("under-policy"),
    endpointSlice({ service: "under-policy", name: "under-policy-1", namespace: "shop", port }),
    service("app-protocol-https", "https"),
    endpointSlice({ service: "app-protocol-https", name: "app-protocol-https-1", namespace: "shop", port }),
  );
}

describe("TLS to the endpoints (BackendTLSPolicy, appProtocol)", () => {
  const ws = new Workspace();
  let listener: HelloListener;
  let gateway: LocalGateway;

  beforeAll(async () => {
    listener = await listenForHellos();
    ws.write({ "kedge.yaml": edgeConfig("tls"), "clusters/c1/app.yaml": app(listener.port) });
    const synced = await ws.sync("--strict");
    if (synced.code !== 0) throw new Error(`sync failed: ${synced.stderr}${synced.stdout}`);
    gateway = await startGateway(ws.state, "tls");
  });

  afterAll(async () => {
    await listener.close();
    await tearDown({ gateway, ws });
  });

  it("a BackendTLSPolicy's endpoint is sent a ClientHello naming the policy's hostname; an untrusted certificate is a 5xx, never plain HTTP", async ({
    expect,
  }) => {
    const before = listener.openings.length;
    const response = await gateway.miniflare.dispatchFetch("http://shop.example.com/policy");
    expect(response.status).toBe(503);
    expect(await response.json()).toMatchObject({ error: "UPSTREAM_UNREACHABLE" });
    const seen = listener.openings.slice(before);
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every((o) => o.tls && o.serverName === "localhost")).toBe(true);
  });

  it("a port with appProtocol https is called over TLS too", async ({ expect }) => {
    const before = listener.openings.length;
    const response = await gateway.miniflare.dispatchFetch("http://shop.example.com/app-protocol");
    expect(response.status).toBe(503);
    const seen = listener.openings.slice(before);
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every((o) => o.tls)).toBe(true);
  });
});
