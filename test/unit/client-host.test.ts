/**
 * The client's Host upstream: which endpoints keep it (names reached through Cloudflare, never IP
 * addresses); what the Worker then hands fetch() is test/worker/upstream-target.test.ts.
 */
import { describe, it } from "vitest";
import { compileYaml } from "../support/compile-fixture";
import { gatewayAndRoute, yamlDocs } from "../support/manifests";

const edge = (endpoints: string) => `apiVersion: kedge.dev/v1alpha1
kind: EdgeConfig
metadata: { name: t }
spec: { gatewayClassName: kedge, clusters: [{ name: c1, endpoints: ${endpoints} }] }
`;

const APP = yamlDocs(
  gatewayAndRoute({ namespace: "shop", rules: "    - backendRefs: [{ name: store, port: 80 }]" }),
  `apiVersion: v1
kind: Service
metadata: { name: store, namespace: shop }
spec: { type: LoadBalancer, ports: [{ name: http, port: 80 }] }
status: { loadBalancer: { ingress: [{ hostname: store-lb.eu.example.net }, { ip: 203.0.113.7 }] } }
`,
);

describe("the client's Host upstream", () => {
  it("the sync marks load-balancer hostnames, never IP addresses, and refuses keepClientHost for EndpointSlice addresses", async ({
    expect,
  }) => {
    const { table } = await compileYaml(edge("{ from: LoadBalancer, keepClientHost: true }"), { c1: APP });
    const endpoints = Object.values(table.backends)[0]!.endpoints.map((e) => [e.host, e.keepClientHost ?? false]);
    expect(endpoints).toEqual([
      ["203.0.113.7", false],
      ["store-lb.eu.example.net", true],
    ]);
    await expect(compileYaml(edge("{ keepClientHost: true }"), { c1: APP })).rejects.toThrow(
      "spec.clusters[0].endpoints.keepClientHost: needs endpoints reached by name (from: LoadBalancer or Hostname)",
    );
  });
});
