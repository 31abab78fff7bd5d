/**
 * @module Looks up the objects kedge reads, of all clusters, by cluster, kind, namespace and name. Only
 * objects of the groups kedge reads each kind from are indexed (see kinds.ts), so a kind names one object
 * type: an Istio Gateway never shadows a Gateway API Gateway.
 */
import type { Manifest } from "../../gateway-api/manifest";
import { NamedMap } from "../named-map";

const scope = (cluster: string, kind: string, namespace: string) => `${cluster}\u0000${kind}\u0000${namespace}`;

/** The label that ties an EndpointSlice to its Service (the EndpointSlice controller sets it). */
export const SERVICE_NAME_LABEL = "kubernetes.io/service-name";

export class ResourceIndex {
  private readonly byName = new NamedMap<Manifest>();
  private readonly byKind = new Map<string, Manifest[]>();
  /** EndpointSlices by the Service their label names (cluster, namespace, Service): found without a scan. */
  private readonly slicesByService = new NamedMap<Manifest[]>();
  /** Objects that share cluster/kind/namespace/name with an earlier one (the earlier one wins), with it. */
  readonly duplicates: { duplicate: Manifest; first: Manifest }[] = [];

  /** The names of objects left out before the index (nothing reaches them), by cluster, kind and namespace. */
  private readonly unreached = new Map<string, string[]>();

  /** `unreached`: objects read but not indexed (nothing can reach them), known by name for "did you mean". */
  constructor(manifests: Manifest[], unreached: Manifest[] = []) {
    for (const m of unreached) {
      const k = scope(m.cluster, m.kind, m.metadata.namespace);
      // Pushed, not spread into a new array: a namespace of 20,000 unrouted objects must not cost n² copies.
      const names = this.unreached.get(k);
      if (names) names.push(m.metadata.name);
      else this.unreached.set(k, [m.metadata.name]);
    }
    for (const m of manifests) {
      const at = scope(m.cluster, m.kind, m.metadata.namespace);
      const first = this.byName.get(at, m.metadata.name);
      if (first) {
        this.duplicates.push({ duplicate: m, first });
        continue;
      }
      this.byName.set(at, m.metadata.name, m);
      const list = this.byKind.get(m.kind) ?? [];
      list.push(m);
      this.byKind.set(m.kind, list);
      const service = m.kind === "EndpointSlice" ? m.metadata.labels[SERVICE_NAME_LABEL] : undefined;
      if (service !== undefined) {
        const of = scope(m.cluster, "Service", m.metadata.namespace);
        const slices = this.slicesByService.get(of, service);
        if (slices) slices.push(m);
        else this.slicesByService.set(of, service, [m]);
      }
    }
  }

  /** The EndpointSlices of a Service (those whose kubernetes.io/service-name label names it), in input order. */
  endpointSlicesOf(cluster: string, namespace: string, service: string): Manifest[] {
    return this.slicesByService.get(scope(cluster, "Service", namespace), service) ?? [];
  }

  get(cluster: string, kind: string, namespace: string, name: string): Manifest | undefined {
    return this.byName.get(scope(cluster, kind, namespace), name);
  }

  /** Every object of a kind, in input order (cluster order, then file order). */
  all(kind: string): Manifest[] {
    return this.byKind.get(kind) ?? [];
  }

  /** The names of every object of `kind` in a namespace of these clusters, reached or not: what a typo could have meant. */
  namesIn(clusters: readonly string[], kind: string, namespace: string): string[] {
    const indexed = this.all(kind).filter((m) => clusters.includes(m.cluster) && m.metadata.namespace === namespace);
    return [
      ...new Set([...indexed.map((m) => m.metadata.name), ...clusters.flatMap((c) => this.unreached.get(scope(c, kind, namespace)) ?? [])]),
    ];
  }

  /** Labels of a Namespace object, if the cluster folder holds one. */
  namespaceLabels(cluster: string, namespace: string): Record<string, string> {
    const ns = this.get(cluster, "Namespace", "default", namespace);
    return { "kubernetes.io/metadata.name": namespace, ...(ns?.metadata.labels ?? {}) };
  }
}
