/** Gateways at one edge address: a Hostname address keeps each apart; where nothing does, the sync says so. */
import { describe, it } from "vitest";
import { matchRequest } from "../../src/routing/match-request";
import { prepareTable } from "../../src/routing/prepared-table";
import { compileYaml } from "../support/compile-fixture";
import { edgeConfig, service, yamlDocs } from "../support/manifests";

const gateway = (name: string, addresses = "") => `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: { name: ${name}, namespace: shop }
spec:
  gatewayClassName: kedge
${addresses}  listeners: [{ name: http, protocol: HTTP, port: 80 }]
`;

const route = (gw: string) => `apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: { name: ${gw}-route, namespace: shop }
spec:
  parentRefs: [{ name: ${gw} }]
  rules: [{ backendRefs: [{ name: ${gw}, port: 8080 }] }]
`;

const ruleFor = (table: Parameters<typeof prepareTable>[0], host: string) =>
  matchRequest(prepareTable(table), {
    protocol: "HTTP",
    host,
    port: 80,
    path: "/",
    method: "GET",
    headers: new Headers(),
    query: { get: () => null },
  })?.rule.id;

describe("Gateways sharing the edge's address", () => {
  it("each Gateway's Hostname address takes its own requests; a host neither names is 404", async ({ expect }) => {
    const { table, diagnostics } = await compileYaml(edgeConfig("t"), {
      c1: yamlDocs(
        gateway("public", "  addresses: [{ type: Hostname, value: www.example.com }]\n"),
        gateway("partners", "  addresses: [{ type: Hostname, value: partners.example.com }, { type: IPAddress, value: 10.1.2.3 }]\n"),
        route("public"),
        route("partners"),
        service("public", "shop"),
        service("partners", "shop"),
      ),
    });
    expect(ruleFor(table, "www.example.com")).toBe("c1/shop/public-route/rule/0");
    expect(ruleFor(table, "partners.example.com")).toBe("c1/shop/partners-route/rule/0");
    expect(ruleFor(table, "other.example.com")).toBeUndefined();
    expect(diagnostics.filter((d) => d.reason === "GatewaysOverlap")).toEqual([]);
    expect(diagnostics.find((d) => d.reason === "UnsupportedAddress")?.message).toContain("address 10.1.2.3 of type IPAddress is not used");
  });

  it("two Gateways that both take every host on port 80 are reported, with what happens and what to do", async ({ expect }) => {
    const { diagnostics } = await compileYaml(edgeConfig("t"), {
      c1: yamlDocs(
        gateway("public"),
        gateway("partners"),
        route("public"),
        route("partners"),
        service("public", "shop"),
        service("partners", "shop"),
      ),
    });
    const overlap = diagnostics.filter((d) => d.reason === "GatewaysOverlap");
    expect(overlap.map((d) => [d.severity, d.object.name])).toEqual([["warning", "partners"]]);
    expect(overlap[0]!.message).toBe(
      "Gateways shop/public and shop/partners both take every host on HTTP port 80: at the edge they share one address, so the routes of both serve those hosts by route precedence. Give each Gateway spec.addresses of type Hostname (or listener hostnames) to keep them apart",
    );
  });
});
