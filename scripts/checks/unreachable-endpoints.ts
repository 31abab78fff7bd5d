/**
 * @module Endpoints a deployed Worker cannot reach, checked before `--remote` writes anything. A private,
 * loopback or link-local address is reachable from Cloudflare only through the cluster's VPC network
 * binding (`endpoints.network`): without one it is an error, since every request for it would fail. A
 * public IP literal is a warning: production fetch() refuses IP addresses, so name it instead. Fine for
 * `npm start` and local pushes, where loopback origins stand in for the clusters.
 */
import { isIpLiteral } from "../../src/gateway-api/hostname";
import { addressScope } from "../../src/routing/address-scope";
import type { CompiledEndpoint, RouteTable } from "../../src/table/route-table";

/** One cluster's (or XBackends') endpoints of one kind that a deployed Worker cannot reach, with the fix. */
export interface UnreachableEndpoints {
  severity: "error" | "warning";
  /** The cluster, or absent for XBackend endpoints (outside every cluster). */
  cluster?: string;
  /** The endpoint ids, in id order. */
  endpoints: string[];
  why: string;
  fix: string;
}

type Finding = Omit<UnreachableEndpoints, "endpoints" | "cluster">;

function judge(e: CompiledEndpoint): Finding | null {
  // Through the cluster's network binding, private addresses are exactly what it reaches.
  if (e.network) return null;
  const scope = addressScope(e.host);
  if (e.external) {
    return scope === "loopback"
      ? {
          severity: "error",
          why: "on this machine (localhost or a loopback address): a deployed Worker would call itself",
          fix: "give the XBackend a public hostname; egress.allowLocalhost is for local development",
        }
      : null;
  }
  if (scope === "loopback" || scope === "private" || scope === "link-local")
    return {
      severity: "error",
      // Worded to follow "endpoint … is" and "3 endpoints … are" alike.
      why: `${scope === "loopback" ? "in the loopback range (this machine)" : scope === "private" ? "in a private address range" : "in the link-local range"}, which a deployed Worker reaches only through a VPC network binding`,
      fix: "run cloudflared in the cluster, route its pod CIDR through the tunnel, add a [[vpc_networks]] block and name it in kedge.yaml (clusters[].endpoints.network); or reach the cluster by LoadBalancer or Hostname",
    };
  if (isIpLiteral(e.host))
    return {
      severity: "warning",
      why: "named by IP address, which production Workers' fetch() refuses",
      fix: "use a LoadBalancer hostname or endpoints.from: Hostname",
    };
  return null;
}

/** What a deployed Worker could not reach, grouped by cluster and finding: errors first. */
export function unreachableEndpoints(table: RouteTable): UnreachableEndpoints[] {
  const groups = new Map<string, UnreachableEndpoints>();
  for (const backend of Object.values(table.backends))
    for (const e of backend.endpoints) {
      const finding = judge(e);
      if (!finding) continue;
      const cluster = e.external ? undefined : e.cluster;
      const key = `${finding.severity} ${cluster ?? ""} ${finding.why}`;
      const group = groups.get(key) ?? { ...finding, ...(cluster ? { cluster } : {}), endpoints: [] };
      if (!group.endpoints.includes(e.id)) group.endpoints.push(e.id);
      groups.set(key, group);
    }
  const rank = (u: UnreachableEndpoints) => (u.severity === "error" ? 0 : 1);
  return [...groups.values()]
    .map((g) => ({ ...g, endpoints: g.endpoints.sort() }))
    .sort((a, b) => rank(a) - rank(b) || (a.cluster ?? "").localeCompare(b.cluster ?? "") || a.why.localeCompare(b.why));
}

/** One line for a group: who, how many, an example or two, why. */
export function describeUnreachable(u: UnreachableEndpoints): string {
  const who = u.cluster ? `cluster ${u.cluster}` : "XBackends";
  const shown = u.endpoints.slice(0, 3).join(", ");
  const more = u.endpoints.length > 3 ? ` and ${u.endpoints.length - 3} more` : "";
  return `${who}: ${u.endpoints.length === 1 ? "endpoint" : `${u.endpoints.length} endpoints`} ${shown}${more} ${u.endpoints.length === 1 ? "is" : "are"} ${u.why}`;
}
