/** @module ReferenceGrant: whether an object may refer to one in another namespace of its cluster. */
import type { Manifest } from "../../gateway-api/manifest";
import type { ResourceIndex } from "./resource-index";
import { specOf } from "./typed-objects";

export interface GrantQuery {
  cluster: string;
  from: { group: string; kind: string; namespace: string };
  to: { group: string; kind: string; namespace: string; name: string };
}

/** True when the reference stays in its namespace, or a ReferenceGrant in the target namespace allows it. */
export function isReferencePermitted(index: ResourceIndex, q: GrantQuery): boolean {
  if (q.from.namespace === q.to.namespace) return true;
  return index.all("ReferenceGrant").some((grant: Manifest) => {
    if (grant.cluster !== q.cluster || grant.metadata.namespace !== q.to.namespace) return false;
    const { from, to } = specOf(grant, "ReferenceGrant");
    const fromOk = from.some((f) => f.group === q.from.group && f.kind === q.from.kind && f.namespace === q.from.namespace);
    const toOk = to.some((t) => t.group === q.to.group && t.kind === q.to.kind && (t.name === undefined || t.name === q.to.name));
    return fromOk && toOk;
  });
}
