/**
 * Another implementation's policies in a cluster read through the Kubernetes API are checked as they are
 * in a folder: discovery finds their kinds ("...Policy" in a CRD's group), and one that targets what the
 * edge serves is a NotEnforced error, so `sync --strict` refuses the push. A policy kind the sync may not
 * list is a warning naming what to grant, not a failed read; Kubernetes' own policy kinds are not listed.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, it } from "vitest";
import { kubeconfigFor, type StandIn, type StandInResource, startStandIn } from "../support/kube-api-stand-in";
import { httpService, kedgeClass, loopbackSlice, resource } from "../support/stand-in-resources";
import { runScript, Workspace } from "./harness";

const TOKEN = "stand-in-token";
const GW = "gateway.networking.k8s.io";

const served: StandInResource[] = [
  kedgeClass(),
  resource("Gateway", [
    {
      metadata: { name: "edge", namespace: "shop" },
      spec: { gatewayClassName: "kedge", listeners: [{ name: "http", protocol: "HTTP", port: 80 }] },
    },
  ]),
  resource("HTTPRoute", [
    {
      metadata: { name: "store", namespace: "shop" },
      spec: { parentRefs: [{ name: "edge" }], hostnames: ["shop.example.com"], rules: [{ backendRefs: [{ name: "store", port: 80 }] }] },
    },
  ]),
  resource("Service", [httpService("shop", "store")]),
  resource("EndpointSlice", [loopbackSlice("shop", "store", "store-1", 9451)]),
];

/** Envoy Gateway's basic auth on the served Gateway: kedge would let requests through without it. */
const securityPolicy: StandInResource = {
  group: "gateway.envoyproxy.io",
  version: "v1alpha1",
  plural: "securitypolicies",
  kind: "SecurityPolicy",
  items: [
    {
      metadata: { name: "basic-auth", namespace: "shop" },
      spec: { targetRefs: [{ group: GW, kind: "Gateway", name: "edge" }], basicAuth: { users: { name: "users" } } },
    },
  ],
};

/** Policies that are not Gateway API policy attachments, or of Kubernetes' own groups: not read. */
const notAttached: StandInResource[] = [
  {
    group: "kyverno.io",
    version: "v1",
    plural: "clusterpolicies",
    kind: "ClusterPolicy",
    clusterScoped: true,
    items: [{ metadata: { name: "require-labels" }, spec: { rules: [] } }],
  },
  {
    group: "networking.k8s.io",
    version: "v1",
    plural: "networkpolicies",
    kind: "NetworkPolicy",
    items: [{ metadata: { name: "deny-all", namespace: "shop" }, spec: { podSelector: {} } }],
  },
];

/** NGINX Gateway Fabric's policy kind, which the sync's role may not list. */
const forbiddenKind: StandInResource = {
  group: "gateway.nginx.org",
  version: "v1alpha1",
  plural: "clientsettingspolicies",
  kind: "ClientSettingsPolicy",
  items: [],
};

const edge = (kubeconfig: string, acknowledged = "") => `apiVersion: kedge.dev/v1alpha1
kind: EdgeConfig
metadata: { name: guarded }
spec:
  gatewayClassName: kedge
  egress: { allowLocalhost: true }
  clusters: [{ name: east, kubeContext: east-admin, kubeconfig: ${JSON.stringify(kubeconfig)} }]
${acknowledged}`;

describe("other implementations' policies in a live cluster", () => {
  const ws = new Workspace();
  let east: StandIn;
  let kubeconfig: string;

  beforeAll(async () => {
    east = await startStandIn([...served, securityPolicy, ...notAttached, forbiddenKind], TOKEN, ["clientsettingspolicies"]);
    kubeconfig = join(ws.dir, "kubeconfig.json");
    writeFileSync(kubeconfig, kubeconfigFor({ "east-admin": east.url }, TOKEN));
  });

  afterAll(async () => {
    await east.close();
    ws.remove();
  });

  it("refuses under --strict a policy that targets a served Gateway, and pushes once it is acknowledged", async ({ expect }) => {
    ws.write({ "kedge.yaml": edge(kubeconfig) });
    const refused = await runScript("scripts/sync.ts", ["--config", ws.config, "--persist-to", ws.state, "--strict", "--no-write-status"]);
    expect(refused.code, refused.stderr).toBe(1);
    expect(refused.stdout).toMatch(/SecurityPolicy shop\/basic-auth .*NotEnforced/);
    expect(refused.stdout).toContain("targets Gateway shop/edge, which this edge serves");
    // The kind it may not list is a warning naming what to grant; the others are not listed at all.
    expect(refused.stdout).toContain("not allowed to list ClientSettingsPolicy (gateway.nginx.org)");
    expect(refused.stdout).toContain("grant get, list and watch on clientsettingspolicies.gateway.nginx.org");
    expect(refused.stdout).not.toMatch(/ClusterPolicy|NetworkPolicy/);
    expect(east.requests).toContain("/apis/gateway.envoyproxy.io/v1alpha1/securitypolicies");
    expect(east.requests).toContain("/apis/kyverno.io/v1/clusterpolicies");
    expect(east.requests.some((r) => r.includes("networkpolicies") || r.startsWith("/apis/networking.k8s.io"))).toBe(false);

    ws.write({
      "kedge.yaml": edge(kubeconfig, "  acknowledgedPolicies: [{ group: gateway.envoyproxy.io, kind: SecurityPolicy }]\n"),
    });
    const pushed = await runScript("scripts/sync.ts", ["--config", ws.config, "--persist-to", ws.state, "--strict", "--no-write-status"]);
    expect(pushed.code, pushed.stderr + pushed.stdout).toBe(0);
    expect(pushed.stdout).toContain("it is not enforced by kedge (acknowledged in kedge.yaml spec.acknowledgedPolicies)");
  });
});
