/**
 * Clusters reached through a Workers VPC network binding, on the sync's side: their pod addresses become
 * endpoints that name the binding, overlapping pod IPs of two clusters stay two endpoints, what the binding
 * cannot do is refused with a reason, and `--remote` refuses private addresses that no binding reaches.
 */
import { describe, it } from "vitest";
import { parse } from "yaml";
import { describeUnreachable, unreachableEndpoints } from "../../scripts/checks/unreachable-endpoints";
import { EdgeConfigError, parseEdgeConfig } from "../../src/compile/input/edge-config";
import { compileYaml } from "../support/compile-fixture";
import { endpointSlice, gatewayAndRoute, service, yamlDocs } from "../support/manifests";

const edge = (clusters: string) => `apiVersion: kedge.dev/v1alpha1
kind: EdgeConfig
metadata: { name: t }
spec:
  gatewayClassName: kedge
  clusters:
${clusters}`;

const TWO_NETWORKS = edge(`    - { name: east, endpoints: { network: VPC_EAST } }
    - { name: west, weight: 3, endpoints: { network: VPC_WEST } }
`);

/** The same Gateway, route and Service in every cluster; each cluster's own pods at `addresses`. */
const cluster = (addresses: string[]) =>
  yamlDocs(
    gatewayAndRoute({ namespace: "shop", hostname: "shop.example.com", rules: "    - backendRefs: [{ name: web, port: 8080 }]" }),
    service("web", "shop"),
    ...addresses.map((address, i) =>
      endpointSlice({ service: "web", name: `web-${i}`, namespace: "shop", port: 8080, addresses: [address] }),
    ),
  );

describe("clusters reached through a VPC network binding", () => {
  it("pod addresses become endpoints that name the binding; the same pod IP in two clusters is two endpoints", async ({ expect }) => {
    const { table, diagnostics } = await compileYaml(TWO_NETWORKS, {
      east: cluster(["10.0.0.5", "10.0.0.6"]),
      west: cluster(["10.0.0.5"]),
    });
    expect(diagnostics.filter((d) => d.severity === "error")).toEqual([]);
    const endpoints = Object.values(table.backends).flatMap((b) => b.endpoints);
    expect(endpoints.map((e) => [e.id, e.network, e.host, e.port, e.weight])).toEqual([
      ["east/10.0.0.5:8080", "VPC_EAST", "10.0.0.5", 8080, 1],
      ["east/10.0.0.6:8080", "VPC_EAST", "10.0.0.6", 8080, 1],
      ["west/10.0.0.5:8080", "VPC_WEST", "10.0.0.5", 8080, 3],
    ]);
    // Reached through their bindings: nothing for --remote to refuse.
    expect(unreachableEndpoints(table)).toEqual([]);
  });

  it("a BackendTLSPolicy cannot be met through a binding: the backendRef is refused, never called without TLS", async ({ expect }) => {
    const policy = `apiVersion: gateway.networking.k8s.io/v1
kind: BackendTLSPolicy
metadata: { name: web-tls, namespace: shop }
spec:
  targetRefs: [{ group: "", kind: Service, name: web }]
  validation: { hostname: web.shop.example.com, wellKnownCACertificates: System }
`;
    const { table, statuses } = await compileYaml(edge("    - { name: east, endpoints: { network: VPC_EAST } }\n"), {
      east: yamlDocs(cluster(["10.0.0.5"]), policy),
    });
    expect(table.rules[0]?.backendRefs[0]?.invalid?.reason).toBe("InvalidBackendTLSPolicy");
    const parent = statuses.find((s) => s.object.kind === "HTTPRoute")?.parents?.[0];
    expect(parent?.conditions).toContainEqual(
      expect.objectContaining({
        type: "ResolvedRefs",
        status: "False",
        reason: "InvalidBackendTLSPolicy",
        message: expect.stringContaining("reached through the network binding VPC_EAST"),
      }),
    );
  });

  it("kedge.yaml refuses a binding name wrangler could not declare, and keepClientHost beside a network", ({ expect }) => {
    const read = (endpoints: string) => () => parseEdgeConfig(parse(edge(`    - { name: east, endpoints: ${endpoints} }\n`)), "kedge.yaml");
    expect(read("{ network: vpc-east }")).toThrow(EdgeConfigError);
    expect(read("{ network: vpc-east }")).toThrow(/spec\.clusters\[0\]\.endpoints\.network: .*vpc_networks/);
    expect(read("{ from: Hostname, hostnameTemplate: '{service}.internal', network: VPC_EAST, keepClientHost: true }")).toThrow(
      /spec\.clusters\[0\]\.endpoints\.keepClientHost: cannot be used with network/,
    );
    expect(read("{ from: Hostname, hostnameTemplate: '{service}.internal', network: VPC_EAST }")().clusters[0]?.endpoints).toEqual({
      from: "Hostname",
      scheme: "http",
      network: "VPC_EAST",
      hostnameTemplate: "{service}.internal",
      port: undefined,
    });
  });
});

describe("what --remote refuses", () => {
  it("private addresses of a cluster without a binding: an error naming the cluster and the fix", async ({ expect }) => {
    const { table } = await compileYaml(edge("    - { name: east }\n    - { name: west, endpoints: { network: VPC_WEST } }\n"), {
      east: cluster(["10.0.0.5", "192.168.1.9", "169.254.0.7", "10.0.0.8"]),
      west: cluster(["10.0.0.5"]),
    });
    const found = unreachableEndpoints(table);
    expect(found.map((u) => [u.severity, u.cluster, u.endpoints])).toEqual([
      ["error", "east", ["east/10.0.0.5:8080", "east/10.0.0.8:8080", "east/192.168.1.9:8080"]],
      ["error", "east", ["east/169.254.0.7:8080"]],
    ]);
    expect(describeUnreachable(found[0]!)).toBe(
      "cluster east: 3 endpoints east/10.0.0.5:8080, east/10.0.0.8:8080, east/192.168.1.9:8080 are in a private address range, which a deployed Worker reaches only through a VPC network binding",
    );
    expect(describeUnreachable(found[1]!)).toBe(
      "cluster east: endpoint east/169.254.0.7:8080 is in the link-local range, which a deployed Worker reaches only through a VPC network binding",
    );
    expect(found[0]?.fix).toContain("clusters[].endpoints.network");
  });

  it("a public IP literal is a warning: production fetch() refuses IP addresses", async ({ expect }) => {
    const { table } = await compileYaml(edge("    - { name: east }\n"), { east: cluster(["203.0.113.7"]) });
    expect(unreachableEndpoints(table).map((u) => [u.severity, u.endpoints])).toEqual([["warning", ["east/203.0.113.7:8080"]]]);
  });
});
