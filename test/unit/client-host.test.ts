/**
 * The client's Host upstream: for endpoints reached by name (LoadBalancer, Hostname) with keepClientHost,
 * the Worker's URL names the client's host (or a URLRewrite's hostname) and cf.resolveOverride names the
 * endpoint, so Cloudflare connects to the endpoint and the origin sees the client's Host. workerd outside
 * Cloudflare ignores resolveOverride, so what is checked here is what the Worker hands fetch().
 */
import { describe, it } from "vitest";
import { upstreamTarget } from "../../src/worker/upstream";
import type { CompiledEndpoint } from "../../src/table/route-table";
import { compileYaml } from "../support/compile-fixture";
import { gatewayAndRoute, yamlDocs } from "../support/manifests";

const endpoint = (e: Partial<CompiledEndpoint>): CompiledEndpoint => ({
  id: "c1/x",
  cluster: "c1",
  scheme: "http",
  host: "store.eu.example.net",
  port: 80,
  weight: 1,
  ready: true,
  serving: true,
  terminating: false,
  ...e,
});

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
  it("keepClientHost: the URL names the client's host on the endpoint's port, resolveOverride the endpoint", ({ expect }) => {
    expect(upstreamTarget(endpoint({ keepClientHost: true, port: 8080 }), "/cart?x=1", "shop.example.com")).toEqual({
      url: "http://shop.example.com:8080/cart?x=1",
      cf: { resolveOverride: "store.eu.example.net" },
    });
  });

  it("without it, or for a probe (no client host), the URL names the endpoint and nothing is overridden", ({ expect }) => {
    expect(upstreamTarget(endpoint({}), "/", "shop.example.com")).toEqual({ url: "http://store.eu.example.net:80/" });
    expect(upstreamTarget(endpoint({ keepClientHost: true }), "/healthz")).toEqual({ url: "http://store.eu.example.net:80/healthz" });
    expect(upstreamTarget(endpoint({ host: "::1" }), "/")).toEqual({ url: "http://[::1]:80/" });
  });

  it("a BackendTLSPolicy's hostname names the URL whatever the client asked for", ({ expect }) => {
    const e = endpoint({ scheme: "https", host: "10.0.0.7", port: 8443, serverName: "store.internal.example.com" });
    expect(upstreamTarget(e, "/", "shop.example.com")).toEqual({
      url: "https://store.internal.example.com:8443/",
      cf: { resolveOverride: "10.0.0.7" },
    });
  });

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
      "keepClientHost needs endpoints reached by name (from: LoadBalancer or Hostname)",
    );
  });
});
