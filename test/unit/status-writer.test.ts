/**
 * Writing status back into a cluster, against the stand-in API server: kedge's entries merged over what
 * the object holds (another controller's kept), a race with another writer (409) read and merged again,
 * an unchanged status not written, another controller's GatewayClass left alone, and a refused write
 * answered with the RBAC rule it lacks.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { KubeApi } from "../../scripts/kube/api-client";
import { discoverListings } from "../../scripts/kube/discovery";
import { statusDocument } from "../../scripts/kube/status/document";
import { writeClusterStatuses } from "../../scripts/kube/status/writer";
import { READ_KINDS } from "../../src/compile/input/kinds";
import type { ResourceStatus } from "../../src/compile/status/diagnostics";
import { KubeStandIn, kubeconfigFor } from "../support/kube-api-stand-in";

const GW = "gateway.networking.k8s.io";
const TOKEN = "t";
const OTHER = {
  controllerName: "example.com/other",
  parentRef: { group: GW, kind: "Gateway", namespace: "shop", name: "theirs" },
  conditions: [],
};

const accepted = { type: "Accepted", status: "True" as const, reason: "Accepted" as const, message: "served" };
const routeStatus: ResourceStatus = {
  object: { cluster: "east", apiVersion: `${GW}/v1`, kind: "HTTPRoute", namespace: "shop", name: "web", generation: 3 },
  conditions: [],
  parents: [{ parentRef: { namespace: "shop", name: "gw" }, conditions: [accepted] }],
};
const classStatus = (name: string): ResourceStatus => ({
  object: { cluster: "east", apiVersion: `${GW}/v1`, kind: "GatewayClass", namespace: "", name },
  conditions: [accepted],
  supportedFeatures: ["Gateway", "HTTPRoute"],
});

let standIn: KubeStandIn | undefined;
afterEach(() => standIn?.close());

async function connect(options: { forbiddenStatus?: string[] } = {}) {
  standIn = await KubeStandIn.start(
    [
      {
        group: GW,
        version: "v1",
        plural: "gatewayclasses",
        kind: "GatewayClass",
        items: [
          { metadata: { name: "kedge" }, spec: { controllerName: "kedge.dev/edge" } },
          { metadata: { name: "envoy" }, spec: { controllerName: "gateway.envoyproxy.io/gatewayclass-controller" } },
        ],
      },
      {
        group: GW,
        version: "v1",
        plural: "httproutes",
        kind: "HTTPRoute",
        items: [{ metadata: { name: "web", namespace: "shop" }, spec: { parentRefs: [{ name: "gw" }] }, status: { parents: [OTHER] } }],
      },
    ],
    { token: TOKEN, ...options },
  );
  const file = join(mkdtempSync(join(tmpdir(), "kedge-kube-")), "kubeconfig.json");
  writeFileSync(file, kubeconfigFor({ east: standIn.url }, TOKEN));
  const api = KubeApi.forCluster({
    name: "east",
    kubeContext: "east",
    kubeconfig: file,
    weight: 1,
    state: "Serving",
    priority: 0,
    endpoints: { from: "EndpointSlice", scheme: "http" },
  });
  const listings = await discoverListings((path) => api.request("GET", path));
  return { api, listings, standIn };
}

describe("status written back", () => {
  it("adds kedge's parent entry after another controller's, and does not write an unchanged status again", async ({ expect }) => {
    const { api, listings, standIn } = await connect();
    const first = await writeClusterStatuses(api, listings, [routeStatus], { now: new Date("2026-11-26T10:00:00Z") });
    expect(first).toMatchObject({ cluster: "east", written: ["HTTPRoute shop/web"], unchanged: 0, failed: [] });
    const parents = (standIn.object("httproutes", "shop", "web")!.status as { parents: unknown[] }).parents;
    expect(parents).toEqual([
      OTHER,
      {
        parentRef: { group: GW, kind: "Gateway", namespace: "shop", name: "gw" },
        controllerName: "kedge.dev/edge",
        conditions: [{ ...accepted, observedGeneration: 3, lastTransitionTime: "2026-11-26T10:00:00Z" }],
      },
    ]);
    const again = await writeClusterStatuses(api, listings, [routeStatus], { now: new Date("2026-11-26T11:00:00Z") });
    expect(again).toMatchObject({ written: [], unchanged: 1 });
    expect(standIn.statusWrites).toHaveLength(1);
  });

  it("reads and merges again when another writer got in first (409), keeping that writer's new entry", async ({ expect }) => {
    const { api, listings, standIn } = await connect();
    let raced = 0;
    standIn.beforeStatusPatch = (plural, namespace, name) => {
      if (raced++ > 0) return;
      const late = { ...OTHER, parentRef: { ...OTHER.parentRef, name: "late" } };
      standIn.setStatus(plural, namespace, name, { parents: [OTHER, late] });
    };
    const report = await writeClusterStatuses(api, listings, [routeStatus]);
    expect(report.written).toEqual(["HTTPRoute shop/web"]);
    const parents = (standIn.object("httproutes", "shop", "web")!.status as { parents: { parentRef: { name: string } }[] }).parents;
    expect(parents.map((p) => p.parentRef.name)).toEqual(["theirs", "late", "gw"]);
    expect(raced).toBe(2);
  });

  it("writes its own GatewayClass, leaves another controller's alone, and names the rule a refused write lacks", async ({ expect }) => {
    const { api, listings, standIn } = await connect({ forbiddenStatus: ["httproutes"] });
    const report = await writeClusterStatuses(api, listings, [classStatus("kedge"), classStatus("envoy"), routeStatus]);
    expect(report.written).toEqual(["GatewayClass kedge"]);
    expect(report.skipped).toEqual([
      expect.stringMatching(
        /^GatewayClass envoy: its controllerName is "gateway.envoyproxy.io\/gatewayclass-controller", not kedge.dev\/edge/,
      ),
    ]);
    expect(report.failed).toEqual([
      {
        object: "HTTPRoute shop/web",
        problem: expect.stringContaining("not allowed to patch httproutes/status (HTTP 403:"),
        fix: 'add to the sync\'s ClusterRole (config/rbac/kedge-sync.yaml): { apiGroups: ["gateway.networking.k8s.io"], resources: ["httproutes/status"], verbs: ["patch"] }',
      },
    ]);
    expect(standIn.object("gatewayclasses", "", "kedge")!.status).toMatchObject({
      supportedFeatures: [{ name: "Gateway" }, { name: "HTTPRoute" }],
    });
    expect(standIn.object("gatewayclasses", "", "envoy")!.status).toBeUndefined();
  });

  it("keeps a condition's lastTransitionTime while its status holds, and moves it when the status changes", ({ expect }) => {
    const before = {
      parents: [
        {
          ...routeStatus.parents![0]!,
          parentRef: { group: GW, kind: "Gateway", namespace: "shop", name: "gw" },
          controllerName: "kedge.dev/edge",
          conditions: [{ ...accepted, lastTransitionTime: "2026-01-01T00:00:00Z" }],
        },
      ],
    };
    const kept = statusDocument(routeStatus, "2026-11-26T10:00:00Z", before) as {
      parents: { conditions: { lastTransitionTime: string }[] }[];
    };
    expect(kept.parents[0]!.conditions[0]!.lastTransitionTime).toBe("2026-01-01T00:00:00Z");
    const refused = {
      ...routeStatus,
      parents: [
        { ...routeStatus.parents![0]!, conditions: [{ ...accepted, status: "False" as const, reason: "NotAllowedByListeners" as const }] },
      ],
    };
    const moved = statusDocument(refused, "2026-11-26T10:00:00Z", before) as typeof kept;
    expect(moved.parents[0]!.conditions[0]!.lastTransitionTime).toBe("2026-11-26T10:00:00Z");
  });
});

describe("config/rbac/kedge-sync.yaml", () => {
  /** The plural an API server gives a kind (gatewayclasses, backendtlspolicies, services). */
  const plural = (kind: string) => {
    const lower = kind.toLowerCase();
    return /[^aeiou]y$/.test(lower) ? `${lower.slice(0, -1)}ies` : lower.endsWith("s") ? `${lower}es` : `${lower}s`;
  };

  it("grants get, list and watch on every kind the sync reads, and patch on the status of every kind it writes", ({ expect }) => {
    const docs = parseAllDocuments(readFileSync("config/rbac/kedge-sync.yaml", "utf8")).map((d) => d.toJS() as Record<string, unknown>);
    const role = docs.find((d) => d.kind === "ClusterRole") as { rules: { apiGroups: string[]; resources: string[]; verbs: string[] }[] };
    const granted = (group: string, resource: string, verb: string) =>
      role.rules.some((r) => r.apiGroups.includes(group) && r.resources.includes(resource) && r.verbs.includes(verb));
    const missing: string[] = [];
    for (const [kind, groups] of Object.entries(READ_KINDS))
      for (const group of groups) {
        for (const verb of ["get", "list", "watch"])
          if (!granted(group, plural(kind), verb)) missing.push(`${verb} ${plural(kind)}.${group}`);
        // Core kinds get no status from kedge; a ReferenceGrant has none.
        const statusless = group === "" || group === "discovery.k8s.io" || group === "multicluster.x-k8s.io" || kind === "ReferenceGrant";
        if (!statusless && !granted(group, `${plural(kind)}/status`, "patch")) missing.push(`patch ${plural(kind)}/status.${group}`);
      }
    expect(missing).toEqual([]);
  });
});
