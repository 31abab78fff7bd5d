/**
 * @module Diagnostics: what the compiler says about each resource, in Gateway API terms.
 * Compile never throws on a user mistake; it records one of these and compiles the rest.
 */
import { fieldSegments, type Position } from "../../gateway-api/locate";
import type { Manifest } from "../../gateway-api/manifest";

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
  /** The Gateway API reason (BackendNotFound, UnsupportedValue ...) or a kedge one. */
  reason: string;
  message: string;
  /** Where `field` is in the object's file, when the file holds it (a defaulted field has no place). */
  position?: Position;
  /** The object failed its schema: the API server would have refused it, so a push refuses it too (unless told otherwise). */
  invalidObject?: true;
}

export interface Condition {
  type: string;
  status: "True" | "False" | "Unknown";
  reason: string;
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

/** Collects diagnostics during one compile. */
export class Diagnostics {
  readonly items: Diagnostic[] = [];

  add(
    severity: Severity,
    m: Manifest | ObjectRef,
    field: string | undefined,
    reason: string,
    message: string,
    extra: Pick<Diagnostic, "invalidObject"> = {},
  ): void {
    const object = "metadata" in m ? objectRef(m) : m;
    const position = field && "locate" in m && m.locate ? m.locate(fieldSegments(field)) : undefined;
    this.items.push({ severity, object, field, reason, message, ...(position ? { position } : {}), ...extra });
  }
  error(m: Manifest | ObjectRef, field: string | undefined, reason: string, message: string): void {
    this.add("error", m, field, reason, message);
  }
  /** An object that fails its schema, left out as the API server would have refused it. */
  invalidObject(m: Manifest, field: string, reason: string, message: string): void {
    this.add("error", m, field, reason, message, { invalidObject: true });
  }
  warn(m: Manifest | ObjectRef, field: string | undefined, reason: string, message: string): void {
    this.add("warning", m, field, reason, message);
  }
  get errorCount(): number {
    return this.items.filter((d) => d.severity === "error").length;
  }
}
