/**
 * @module The Gateways each backend object is used through: what an XBackend's `status.parents` and a
 * backend policy's PolicyStatus `ancestors` name. A backend is used through a Gateway when an accepted
 * route attached to that Gateway names it (backendRef or RequestMirror), or names a CompositeBackend it
 * is a member of. Only Gateways of the object's own cluster count: a status refers to objects of its
 * cluster only.
 */
import type { CompiledBackendRef, CompiledFilter, CompiledRule } from "../../table/route-table";
import type { BackendRegistry } from "../backends/registry";
import type { CompositeBackends } from "../backends/composite-backends";
import { rulesOf, type ServedRoute } from "../emit/rules";
import { backendKey } from "../backends/backend-policies";

export interface GatewayRef {
  namespace: string;
  name: string;
}

/** Ids of the backends a rule sends to: its backendRefs and every RequestMirror, its own and its refs'. */
export function backendsOfRule(rule: { filters: CompiledFilter[]; backendRefs: CompiledBackendRef[] }): string[] {
  const mirrors = (filters: CompiledFilter[]) => filters.flatMap((f) => (f.type === "RequestMirror" ? [f.backend] : []));
  return [...mirrors(rule.filters), ...rule.backendRefs.flatMap((b) => [...(b.backend ? [b.backend] : []), ...mirrors(b.filters)])];
}

export class BackendAncestors {
  /** backend key (as session policies name targets) → cluster → its Gateways by `namespace/name` */
  private readonly byKey = new Map<string, Map<string, Map<string, GatewayRef>>>();

  constructor(routes: ServedRoute[], rules: CompiledRule[], backends: BackendRegistry, composites: CompositeBackends) {
    for (const route of routes) {
      // A route (or Gateway) applied to several clusters is used through the Gateway in each of them.
      for (const cluster of route.clusters) {
        const gateways = route.listeners
          .filter((listener) => listener.clusters.includes(cluster))
          .map(({ gateway }) => ({ namespace: gateway.metadata.namespace, name: gateway.metadata.name }));
        for (const id of new Set(rulesOf(route, rules).flatMap(backendsOfRule))) {
          const source = backends.get(id)?.source;
          if (!source) continue;
          if (source.kind === "Service" || source.kind === "XBackend") {
            if (source.cluster.split(",").includes(cluster)) this.add(backendKey({ ...source, cluster }), cluster, gateways);
            continue;
          }
          this.add(backendKey(source), cluster, gateways);
          if (source.kind !== "CompositeBackend") continue;
          for (const member of composites.membersOf(source.namespace, source.name))
            for (const target of member.targets)
              if (target.kind === "XBackend")
                this.add(
                  backendKey({ kind: "XBackend", cluster: member.cluster, namespace: source.namespace, name: target.name }),
                  cluster,
                  gateways,
                );
        }
      }
    }
  }

  private add(key: string, cluster: string, gateways: GatewayRef[]): void {
    const clusters = this.byKey.get(key) ?? new Map<string, Map<string, GatewayRef>>();
    this.byKey.set(key, clusters);
    const named = clusters.get(cluster) ?? new Map<string, GatewayRef>();
    clusters.set(cluster, named);
    for (const g of gateways) named.set(`${g.namespace}/${g.name}`, g);
  }

  /** The Gateways of `cluster` through which any of the backends `keys` is used, in name order. */
  of(cluster: string, keys: string[]): GatewayRef[] {
    const named = new Map(keys.flatMap((k) => [...(this.byKey.get(k)?.get(cluster) ?? [])]));
    return [...named.keys()].sort().map((n) => named.get(n)!);
  }
}
