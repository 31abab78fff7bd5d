/** @module ReferenceGrant: whether an object may refer to one in another namespace of its cluster. */
import type { Manifest } from "../../gateway-api/manifest";
import type { ResourceIndex } from "./resource-index";
import { nearest } from "../../table/did-you-mean";
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

/**
 * What the ReferenceGrants of the target's namespace allow, for a message about a reference none permits: each
 * grant in a few words, and a did-you-mean when one names a namespace or target a typo away from this one.
 */
export function grantHint(index: ResourceIndex, q: GrantQuery): string {
  const grants = index.all("ReferenceGrant").filter((g) => g.cluster === q.cluster && g.metadata.namespace === q.to.namespace);
  if (grants.length === 0) return ` (namespace ${q.to.namespace} of cluster ${q.cluster} has no ReferenceGrant)`;
  const specs = grants.map((g) => ({ name: g.metadata.name, ...specOf(g, "ReferenceGrant") }));
  const told = specs.map(
    ({ name, from, to }) =>
      `${name} lets ${from.map((f) => `${f.kind} from ${f.namespace}`).join(", ")} use ${to.map((t) => `${t.kind}${t.name ? ` ${t.name}` : ""}`).join(", ")}`,
  );
  const namespaces = specs.flatMap((g) => g.from.map((f) => f.namespace)).filter((ns) => ns !== q.from.namespace);
  const targets = specs.flatMap((g) => g.to.flatMap((t) => (t.name && t.name !== q.to.name ? [t.name] : [])));
  const nearNamespace = nearest(q.from.namespace, namespaces);
  const nearTarget = nearest(q.to.name, targets);
  const meant = [
    ...(nearNamespace ? [`a grant names namespace ${nearNamespace}: did you mean ${q.from.namespace}?`] : []),
    ...(nearTarget ? [`a grant names ${q.to.kind} ${nearTarget}: did you mean ${q.to.name}?`] : []),
  ];
  return ` (${[...meant, `ReferenceGrants there: ${told.join("; ")}`].join("; ")})`;
}
