/**
 * @module What each configured cluster contributes (every cluster counts): the routes with a copy in it, its
 * Services whose endpoints the table holds, those endpoints ready and in all, and, for a cluster that takes no new
 * traffic, why. Counted from what the compile served, so a cluster dropped by a conflict, an empty folder or
 * EndpointSlices left out shows as zero with its cause; a cluster that takes no traffic against the operator's
 * intent is a warning naming the cost.
 */
import type { Manifest } from "../../gateway-api/manifest";
import { type ClusterAccount, type CompiledBackend, type CompiledRule, takesNewTraffic } from "../../table/route-table";
import type { EdgeConfig } from "../input/edge-config";
import { rulesOf, type ServedRoute } from "../emit/rules";
import type { CompileReport } from "../status/compile-report";
import { REASON } from "../status/conditions";
import type { ObjectRef } from "../status/diagnostics";

/** A cluster, as the report names it when it speaks of the cluster itself. */
export const clusterObject = (cluster: string): ObjectRef => ({ cluster, kind: "Cluster", namespace: "", name: cluster });

const plural = (n: number, noun: string) => `${n} ${noun}${n === 1 ? "" : "s"}`;

/** How many objects were read from a cluster, and how many of them are HTTPRoutes. */
interface ReadCount {
  objects: number;
  routes: number;
}

function readCounts(manifests: Manifest[]): Map<string, ReadCount> {
  const counts = new Map<string, ReadCount>();
  for (const m of manifests) {
    let count = counts.get(m.cluster);
    if (!count) counts.set(m.cluster, (count = { objects: 0, routes: 0 }));
    count.objects++;
    if (m.kind === "HTTPRoute") count.routes++;
  }
  return counts;
}

/**
 * Why a cluster that takes no new traffic takes none; undefined when it takes some (or drains on purpose).
 * `externalOnly` (its routes send only to XBackends) is asked only of a cluster with routes and no endpoints.
 */
function idleCause(
  c: EdgeConfig["clusters"][number],
  read: ReadCount,
  account: Omit<ClusterAccount, "idle">,
  droppedSlices: number,
  externalOnly: () => boolean,
): string | undefined {
  if (c.state === "Disabled")
    return c.staleSince
      ? `its API has not answered since ${c.staleSince}, longer than --stale-after: its endpoints are left out until it answers`
      : "it is Disabled in kedge.yaml: none of its endpoints are in the table";
  if (read.objects === 0) return "no objects were read from it (an empty folder, or an API that lists nothing kedge reads)";
  if (account.routes === 0) {
    return read.routes > 0
      ? `no served route has a copy in it (its ${plural(read.routes, "HTTPRoute")} attach to no Gateway this edge serves, or are refused)`
      : "no served route has a copy in it (it holds no HTTPRoute)";
  }
  if (account.endpoints === 0 && !externalOnly())
    return `no Service its routes send to has endpoints the edge can use${droppedSlices > 0 ? ` (${plural(droppedSlices, "EndpointSlice")} left out: see EndpointsDropped)` : ""}`;
  if (account.readyEndpoints === 0 && account.endpoints > 0) return `none of its ${plural(account.endpoints, "endpoint")} is ready`;
  return undefined;
}

/**
 * Every configured cluster's account, in kedge.yaml's order; each cluster that takes no new traffic is told (a
 * warning, or an info for one Disabled on purpose).
 */
export function accountClusters(
  edge: EdgeConfig,
  manifests: Manifest[],
  routes: ServedRoute[],
  rules: CompiledRule[],
  backends: CompiledBackend[],
  droppedSlices: Manifest[],
  report: CompileReport,
): Record<string, ClusterAccount> {
  const accounts: Record<string, ClusterAccount> = {};
  const byId = new Map(backends.map((b) => [b.id, b]));
  const read = readCounts(manifests);
  for (const c of edge.clusters) {
    const endpoints = new Map<string, boolean>();
    const services = new Set<string>();
    for (const b of backends)
      for (const e of b.endpoints) {
        // An XBackend's external endpoint is nobody's capacity: it is not counted for a cluster.
        if (e.cluster !== c.name || e.external) continue;
        endpoints.set(e.id, (endpoints.get(e.id) ?? false) || takesNewTraffic(e));
        services.add(`${b.source.kind}/${b.source.namespace}/${b.source.name}`);
      }
    const counted = {
      routes: routes.filter((r) => r.clusters.includes(c.name)).length,
      services: services.size,
      endpoints: endpoints.size,
      readyEndpoints: [...endpoints.values()].filter(Boolean).length,
    };
    // Routes that send only to external backends (XBackends) use no cluster's capacity: nothing is lost there.
    const externalOnly = () => {
      const sentTo = routes
        .filter((r) => r.clusters.includes(c.name))
        .flatMap((r) =>
          rulesOf(r, rules).flatMap((rule) => rule.backendRefs.flatMap((ref) => (ref.backend ? [byId.get(ref.backend)] : []))),
        );
      return sentTo.length > 0 && sentTo.every((b) => b?.source.kind === "XBackend");
    };
    const idle = idleCause(
      c,
      read.get(c.name) ?? { objects: 0, routes: 0 },
      counted,
      new Set(droppedSlices.filter((s) => s.cluster === c.name)).size,
      externalOnly,
    );
    accounts[c.name] = { ...counted, ...(idle ? { idle } : {}) };
    if (idle)
      report.tell(
        c.state === "Disabled" && !c.staleSince ? "info" : "warning",
        clusterObject(c.name),
        undefined,
        REASON.NoTraffic,
        `cluster ${c.name} gets no traffic: ${idle}`,
      );
  }
  return accounts;
}
