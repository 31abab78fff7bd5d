/** @module Looks up the objects of all clusters by cluster, kind, namespace and name. */
import type { Manifest } from "../gateway-api/manifest";
export declare class ResourceIndex {
  private readonly byKey;
  private readonly byKind;
  /** Objects that share cluster/kind/namespace/name with an earlier one (the earlier one wins). */
  readonly duplicates: Manifest[];
  constructor(manifests: Manifest[]);
  get(cluster: string, kind: string, namespace: string, name: string): Manifest | undefined;
  /** Every object of a kind, in input order (cluster order, then file order). */
  all(kind: string): Manifest[];
  /** Labels of a Namespace object, if the cluster folder holds one. */
  namespaceLabels(cluster: string, namespace: string): Record<string, string>;
}
