/** @module Looks up the objects of all clusters by cluster, kind, namespace and name. */
import type { Manifest } from "../gateway-api/manifest";

const key = (cluster: string, kind: string, namespace: string, name: string) => `${cluster}\u0000${kind}\u0000${namespace}\u0000${name}`;

export class ResourceIndex {
  private readonly byKey = new Map<string, Manifest>();
  private readonly byKind = new Map<string, Manifest[]>();
  /** Objects that share cluster/kind/namespace/name with an earlier one (the earlier one wins). */
  readonly duplicates: Manifest[] = [];

  constructor(manifests: Manifest[]) {
    for (const m of manifests) {
      const k = key(m.cluster, m.kind, m.metadata.namespace, m.metadata.name);
      if (this.byKey.has(k)) {
        this.duplicates.push(m);
        continue;
      }
      this.byKey.set(k, m);
      const list = this.byKind.get(m.kind) ?? [];
      list.push(m);
      this.byKind.set(m.kind, list);
    }
  }

  get(cluster: string, kind: string, namespace: string, name: string): Manifest | undefined {
    return this.byKey.get(key(cluster, kind, namespace, name));
  }

  /** Every object of a kind, in input order (cluster order, then file order). */
  all(kind: string): Manifest[] {
    return this.byKind.get(kind) ?? [];
  }

  /** Labels of a Namespace object, if the cluster folder holds one. */
  namespaceLabels(cluster: string, namespace: string): Record<string, string> {
    const ns = this.get(cluster, "Namespace", "default", namespace);
    return { "kubernetes.io/metadata.name": namespace, ...(ns?.metadata.labels ?? {}) };
  }
}
