/**
 * What the Worker hands fetch() for each kind of endpoint: the URL's host (SNI, and the Host the origin
 * sees) and cf.resolveOverride where the URL names another host than the endpoint. workerd outside
 * Cloudflare ignores resolveOverride, so the choice itself is what is checked here.
 */
import { describe, it } from "vitest";
import type { CompiledEndpoint } from "../../src/table/route-table";
import { upstreamTarget } from "../../src/worker/upstream";

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

describe("the upstream URL", () => {
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
});
