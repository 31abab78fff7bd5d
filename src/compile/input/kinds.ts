/**
 * @module Which objects kedge reads, known by API group and kind, not by kind alone: Istio's
 * `networking.istio.io` Gateway or Knative's `serving.knative.dev` Service are other objects than the
 * Gateway API's Gateway and the core Service, and are left alone. A kind that the Gateway API groups do
 * not have (`HttpRoute`) is an error, as the API server would refuse it.
 */
import type { CompileReport } from "../status/compile-report";
import { REASON } from "../status/conditions";
import { apiGroup, type Manifest } from "../../gateway-api/manifest";
import { GATEWAY_GROUP, MCS_GROUP, X_GROUP } from "./api-groups";

const CORE = "";
const DISCOVERY = "discovery.k8s.io";

/** The kinds kedge reads, with the groups it reads each from. */
export const READ_KINDS: Readonly<Record<string, readonly string[]>> = {
  Gateway: [GATEWAY_GROUP],
  GatewayClass: [GATEWAY_GROUP],
  HTTPRoute: [GATEWAY_GROUP],
  ReferenceGrant: [GATEWAY_GROUP],
  ListenerSet: [GATEWAY_GROUP],
  XListenerSet: [X_GROUP],
  // Read to say why they are not served (a Worker proxies HTTP).
  GRPCRoute: [GATEWAY_GROUP],
  TLSRoute: [GATEWAY_GROUP],
  TCPRoute: [GATEWAY_GROUP],
  UDPRoute: [GATEWAY_GROUP],
  BackendTLSPolicy: [GATEWAY_GROUP],
  BackendLBPolicy: [GATEWAY_GROUP],
  XBackendTrafficPolicy: [X_GROUP],
  CompositeBackend: [GATEWAY_GROUP, X_GROUP],
  XBackend: [X_GROUP],
  Service: [CORE],
  Namespace: [CORE],
  EndpointSlice: [DISCOVERY],
  ServiceExport: [MCS_GROUP],
  ServiceImport: [MCS_GROUP],
};

/** Every kind of the Gateway API groups (release v1.5, standard and experimental channels), and the seed kinds. */
const GROUP_KINDS: Readonly<Record<string, readonly string[]>> = {
  [GATEWAY_GROUP]: [
    "Gateway",
    "GatewayClass",
    "HTTPRoute",
    "GRPCRoute",
    "TLSRoute",
    "TCPRoute",
    "UDPRoute",
    "ReferenceGrant",
    "BackendTLSPolicy",
    "ListenerSet",
    "BackendLBPolicy",
    "CompositeBackend",
  ],
  [X_GROUP]: ["XListenerSet", "XBackendTrafficPolicy", "BackendTrafficPolicy", "XMesh", "XBackend", "CompositeBackend"],
};

/** Whether the object attaches to others by Gateway API policy attachment (GEP-713: spec.targetRef or spec.targetRefs). */
export const isAttachedPolicy = (m: Manifest): boolean => m.spec.targetRef !== undefined || m.spec.targetRefs !== undefined;

/** Whether kedge reads this object as the kind it names (its group is one kedge reads that kind from). */
export const isRead = (m: Manifest): boolean => READ_KINDS[m.kind]?.includes(apiGroup(m.apiVersion)) === true;

/** A kind of `group` spelled like `kind` but for letter case, if any. */
function sameButCase(group: string, kind: string): string | undefined {
  const lower = kind.toLowerCase();
  const candidates = [...(GROUP_KINDS[group] ?? []), ...Object.keys(READ_KINDS).filter((k) => READ_KINDS[k]!.includes(group))];
  return candidates.find((k) => k.toLowerCase() === lower);
}

/**
 * The objects kedge reads; the others are reported: an unknown kind of a Gateway API group (or one that
 * differs from a read kind only in case) is an error, any other kind an info that it is left alone.
 */
export function readableObjects(manifests: Manifest[], report: CompileReport): { read: Manifest[]; others: Manifest[] } {
  const read: Manifest[] = [];
  const others: Manifest[] = [];
  const notRead = new Map<string, Manifest[]>();
  for (const m of manifests) {
    if (isRead(m)) {
      read.push(m);
      continue;
    }
    others.push(m);
    const group = apiGroup(m.apiVersion);
    const meant = sameButCase(group, m.kind);
    const groupName = group || "core (v1)";
    if (meant || GROUP_KINDS[group]) {
      const hint = meant ? ` (kinds are case-sensitive: did you mean ${meant}?)` : "";
      report.invalidObject(m, "kind", REASON.InvalidKind, `${groupName} has no kind ${m.kind}${hint}; the object is not read`);
    } else if (READ_KINDS[m.kind]) {
      const groups = READ_KINDS[m.kind]!.map((g) => g || "core (v1)").join(" or ");
      report.tell(
        "info",
        m,
        "apiVersion",
        REASON.Ignored,
        `a ${m.kind} of ${groupName} is not the ${m.kind} kedge reads (${groups}); left alone`,
      );
    } else if (!isAttachedPolicy(m)) {
      // An attached policy is reported by what it targets (foreign-policies.ts). The rest is told once per kind
      // and cluster: a dump of a whole cluster holds thousands of Pods.
      const k = `${m.cluster}\u0000${group}\u0000${m.kind}`;
      const objects = notRead.get(k);
      if (objects) objects.push(m);
      else notRead.set(k, [m]);
    }
  }
  for (const objects of notRead.values()) {
    const first = objects[0]!;
    const kindText = `kind ${first.kind} of ${apiGroup(first.apiVersion) || "core (v1)"}`;
    const names = objects.slice(0, 3).map((o) => `${o.metadata.namespace}/${o.metadata.name}`);
    const more = objects.length > 3 ? ` and ${objects.length - 3} more` : "";
    report.info(
      first,
      undefined,
      REASON.Ignored,
      objects.length === 1
        ? `${kindText} is not read by kedge`
        : `${kindText} is not read by kedge (${objects.length} objects: ${names.join(", ")}${more})`,
    );
  }
  return { read, others };
}
