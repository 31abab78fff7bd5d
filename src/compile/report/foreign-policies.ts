/**
 * @module Another implementation's policies (Envoy Gateway's SecurityPolicy, NGINX Gateway Fabric's,
 * kgateway's, Istio's AuthorizationPolicy with targetRefs ...) that attach, by Gateway API policy
 * attachment (GEP-713: `spec.targetRef` or `spec.targetRefs`), to an object this edge serves. kedge does
 * not enforce them, so the traffic they were meant to protect would pass the edge without them: each is an
 * error ("not enforced by kedge") that `--strict` refuses, unless kedge.yaml's spec.acknowledgedPolicies
 * accepts it on purpose (then a warning says it stays unenforced).
 */
import type { CompileReport } from "../status/compile-report";
import { REASON } from "../status/conditions";
import { apiGroup, isJsonObject, type Manifest } from "../../gateway-api/manifest";
import type { CompiledBackend } from "../../table/route-table";
import { GATEWAY_GROUP, MCS_GROUP, X_GROUP } from "../input/api-groups";
import type { CompositeBackends } from "../backends/composite-backends";
import type { AcknowledgedPolicy } from "../input/edge-config";
import type { EdgeListener } from "../gateways/listener";
import type { ServedRoute } from "../emit/rules";
import { isAttachedPolicy } from "../input/kinds";

/** What this edge serves, by `cluster/group/kind/namespace/name`. */
export type ServedObjects = Set<string>;

export const servedKey = (cluster: string, group: string, kind: string, namespace: string, name: string): string =>
  `${cluster}/${group}/${kind}/${namespace}/${name}`;

/**
 * Every object the compiled table serves, in each cluster it is served from: the Gateways (and ListenerSets)
 * of served listeners, the accepted HTTPRoutes, and the objects behind the backends a served rule uses
 * (a ServiceImport's Services, a CompositeBackend's targets).
 */
export function servedObjects(
  listeners: EdgeListener[],
  routes: ServedRoute[],
  backends: CompiledBackend[],
  composites: CompositeBackends,
): ServedObjects {
  const served: ServedObjects = new Set();
  const add = (m: Manifest) => served.add(servedKey(m.cluster, apiGroup(m.apiVersion), m.kind, m.metadata.namespace, m.metadata.name));
  for (const l of listeners) for (const m of [...l.copies, ...(l.listenerSet ?? [])]) add(m);
  for (const r of routes)
    for (const cluster of r.clusters)
      served.add(servedKey(cluster, GATEWAY_GROUP, "HTTPRoute", r.manifest.metadata.namespace, r.manifest.metadata.name));
  for (const { source } of backends) {
    const { kind, namespace, name } = source;
    for (const cluster of source.cluster.split(",")) {
      if (kind === "Service" || kind === "ServiceImport") served.add(servedKey(cluster, "", "Service", namespace, name));
      if (kind === "ServiceImport") served.add(servedKey(cluster, MCS_GROUP, kind, namespace, name));
      if (kind === "XBackend") served.add(servedKey(cluster, X_GROUP, kind, namespace, name));
    }
    if (kind !== "CompositeBackend") continue;
    for (const member of composites.membersOf(namespace, name)) {
      for (const group of [GATEWAY_GROUP, X_GROUP]) served.add(servedKey(member.cluster, group, kind, namespace, name));
      for (const t of member.targets) served.add(servedKey(member.cluster, t.kind === "Service" ? "" : X_GROUP, t.kind, namespace, t.name));
    }
  }
  return served;
}

/** A target reference of a policy, as GEP-713 writes it. */
function targetsOf(policy: Manifest): Record<string, unknown>[] {
  const { targetRef, targetRefs } = policy.spec;
  return [...(isJsonObject(targetRef) ? [targetRef] : []), ...(Array.isArray(targetRefs) ? targetRefs.filter(isJsonObject) : [])];
}

const acknowledged = (list: AcknowledgedPolicy[], policy: Manifest): boolean =>
  list.some(
    (a) =>
      a.group === apiGroup(policy.apiVersion) &&
      a.kind === policy.kind &&
      (a.namespace === undefined || a.namespace === policy.metadata.namespace) &&
      (a.name === undefined || a.name === policy.metadata.name),
  );

/**
 * Reports every policy of another implementation that targets an object `served` gives. The served objects are
 * found only once a policy has a target to look up: most configs hold no such policy, and the set has a key for
 * every served route (30 MB at 100k routes).
 */
export function reportForeignPolicies(
  others: Manifest[],
  served: () => ServedObjects,
  acknowledgedPolicies: AcknowledgedPolicy[],
  report: CompileReport,
): void {
  let servedSet: ServedObjects | undefined;
  for (const policy of others) {
    const hits = targetsOf(policy).flatMap((t) => {
      if (typeof t.name !== "string" || typeof t.kind !== "string") return [];
      // The core group is written "" or, by some projects, "core"; a missing group means the Gateway API's.
      const group = typeof t.group === "string" ? (t.group === "core" ? "" : t.group) : t.kind === "Service" ? "" : GATEWAY_GROUP;
      const namespace = typeof t.namespace === "string" ? t.namespace : policy.metadata.namespace;
      servedSet ??= served();
      return servedSet.has(servedKey(policy.cluster, group, t.kind, namespace, t.name)) ? [`${t.kind} ${namespace}/${t.name}`] : [];
    });
    if (hits.length === 0) {
      if (isAttachedPolicy(policy))
        report.tell(
          "info",
          policy,
          undefined,
          REASON.Ignored,
          `${apiGroup(policy.apiVersion) || "core"} ${policy.kind} targets nothing this edge serves; left alone`,
        );
      continue;
    }
    const what = `${apiGroup(policy.apiVersion) || "core"} ${policy.kind} targets ${hits.join(", ")}, which this edge serves`;
    if (acknowledged(acknowledgedPolicies, policy)) {
      report.warn(
        policy,
        "spec",
        REASON.NotEnforced,
        `${what}; it is not enforced by kedge (acknowledged in kedge.yaml spec.acknowledgedPolicies)`,
      );
      continue;
    }
    report.error(
      policy,
      "spec",
      REASON.NotEnforced,
      `${what}, but it is not enforced by kedge: requests reach the backends without it. Enforce it elsewhere (at the origin), or acknowledge it in kedge.yaml spec.acknowledgedPolicies`,
    );
  }
}
