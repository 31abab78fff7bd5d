/**
 * @module What the compiler says about each resource, in Gateway API terms: the diagnostics the CLI prints and
 * the statuses a controller writes (both told through compile-report.ts). Compile never throws on a user
 * mistake; it records what it found and compiles the rest.
 */
import type { Position } from "../../gateway-api/locate";
import type { Manifest } from "../../gateway-api/manifest";
import type { Reason } from "./conditions";

export type Severity = "error" | "warning" | "info";

/** Identifies one object of one cluster, with where it was read. */
export interface ObjectRef {
  cluster: string;
  apiVersion?: string;
  kind: string;
  namespace: string;
  name: string;
  file?: string;
  line?: number;
  /** The object's metadata.generation, when it had one: what a status's observedGeneration names. */
  generation?: number;
}

export interface Diagnostic {
  /** error: something was rejected and left out; warning: compiled, but not as written. */
  severity: Severity;
  object: ObjectRef;
  /** JSON path inside the object, e.g. `spec.rules[0].backendRefs[1].name`. */
  field?: string;
  /** The Gateway API reason (BackendNotFound, UnsupportedValue ...) or a kedge one (conditions.ts). */
  reason: Reason;
  message: string;
  /** Where `field` is in the object's file, when the file holds it (a defaulted field has no place). */
  position?: Position;
  /** The object failed its schema: the API server would have refused it, so a push refuses it too (unless told otherwise). */
  invalidObject?: true;
}

export interface Condition {
  type: string;
  status: "True" | "False" | "Unknown";
  reason: Reason;
  message: string;
}

/** A route's parentRef, as its status names it (a Gateway unless `kind` says otherwise). */
export interface ParentRefView {
  group?: string;
  kind?: string;
  namespace: string;
  name: string;
  sectionName?: string;
  port?: number;
}

/** A parentRef's identity: equal for two views of the same parent, whatever object holds them. */
export const parentKey = (p: ParentRefView): string =>
  [p.group ?? "", p.kind ?? "", p.namespace, p.name, p.sectionName ?? "", p.port ?? ""].join("\u0000");

/** `namespace/name[/section][:port]` */
export const parentRefText = (p: ParentRefView): string =>
  `${p.namespace}/${p.name}${p.sectionName ? `/${p.sectionName}` : ""}${p.port ? `:${p.port}` : ""}`;

/** The status a Gateway API controller would write for one object (per parent for routes). */
export interface ResourceStatus {
  object: ObjectRef;
  conditions: Condition[];
  /** HTTPRoute: one entry per parentRef. */
  parents?: { parentRef: ParentRefView; conditions: Condition[] }[];
  /** Gateway and ListenerSet: one entry per listener. */
  listeners?: { name: string; attachedRoutes: number; conditions: Condition[]; supportedKinds?: string[] }[];
  /** Gateway: how many ListenerSets attached listeners to it. */
  attachedListenerSets?: number;
  /** Gateway: the hostnames the edge serves it on (its Hostname addresses, else its served listeners' exact hostnames). */
  addresses?: string[];
  /** GatewayClass: the features the controller supports, in upstream's vocabulary. */
  supportedFeatures?: string[];
  /**
   * XBackend and backend policies: the Gateways of its cluster it is used through, each with the
   * object's conditions (written as XBackend `status.parents`, PolicyStatus `ancestors`).
   */
  ancestors?: { ancestorRef: { namespace: string; name: string }; conditions: Condition[] }[];
  /**
   * CompositeBackend: the clusters whose objects contribute endpoints to the aggregate. A Gateway or
   * HTTPRoute applied identically to several clusters: those clusters, and for a route what each of its
   * cluster-local backends draws from ("Service shop/web:8080 from east, west").
   */
  aggregate?: { clusters: string[]; backends?: string[] };
}

export function objectRef(m: Manifest): ObjectRef {
  return {
    cluster: m.cluster,
    apiVersion: m.apiVersion,
    kind: m.kind,
    namespace: m.metadata.namespace,
    name: m.metadata.name,
    file: m.file,
    line: m.line,
    ...(m.metadata.generation !== undefined ? { generation: m.metadata.generation } : {}),
  };
}
