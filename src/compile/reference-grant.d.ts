import type { ResourceIndex } from "./resource-index";
export interface GrantQuery {
  cluster: string;
  from: {
    group: string;
    kind: string;
    namespace: string;
  };
  to: {
    group: string;
    kind: string;
    namespace: string;
    name: string;
  };
}
/** True when the reference stays in its namespace, or a ReferenceGrant in the target namespace allows it. */
export declare function isReferencePermitted(index: ResourceIndex, q: GrantQuery): boolean;
