/**
 * @module ListenerSet (gateway.networking.k8s.io/v1 since v1.5, GEP-1713; XListenerSet of the experimental
 * group before it): listeners a team adds to a shared Gateway. A set's listeners are served as listeners
 * of its Gateway once the Gateway's `allowedListeners` lets the set's namespace attach (by default no
 * namespace may); routes attach to them by naming the set as their parent. A set's listener that clashes
 * with one the Gateway (or an older set) already has on its port and hostname is not served. A set whose
 * Gateway this edge does not serve in its cluster (none of that name, or one refused) is a warning: its
 * listeners are not served, which nothing else would say.
 */
import type { CompileReport } from "../status/compile-report";
import type { Manifest } from "../../gateway-api/manifest";
import { GATEWAY_GROUP, X_GROUP } from "../input/api-groups";
import { accepted, fails, programmed, type Reason, REASON } from "../status/conditions";
import { compileListener, notServed } from "./gateways";
import { type EdgeListener, isServed } from "./listener";
import { compileLabelSelector } from "../input/label-selector";
import type { ResourceIndex } from "../input/resource-index";
import { byAge, groupSameObjects } from "../input/sameness";
import { type ListenerSetSpec, specOf } from "../input/typed-objects";

/** A set that could not attach to its Gateway, with why. */
export interface RejectedSet {
  copies: Manifest[];
  reason: Reason;
  message: string;
}

/** Why a set's parentRef names no Gateway this edge serves in the set's cluster, with the ones it does serve there. */
function noHome(
  set: Manifest,
  parent: { namespace: string; name: string },
  index: ResourceIndex,
  gatewayListeners: EdgeListener[],
): string {
  const gateway = `Gateway ${parent.namespace}/${parent.name}`;
  const served = [
    ...new Set(
      gatewayListeners
        .filter((l) => l.clusters.includes(set.cluster))
        .map((l) => `${l.gateway.metadata.namespace}/${l.gateway.metadata.name}`),
    ),
  ].sort();
  const why = index.get(set.cluster, "Gateway", parent.namespace, parent.name)
    ? `${gateway} is not served in cluster ${set.cluster} (see its own report)`
    : `cluster ${set.cluster} has no ${gateway} (a ListenerSet attaches to a Gateway of its own cluster)`;
  const known = served.length > 0 ? `; Gateways served in cluster ${set.cluster}: ${served.join(", ")}` : "";
  return `${why}: the set's listeners are not served${known}`;
}

/** Why `gateway` does not take listeners from `set`'s namespace, or null when it does. */
function notAllowed(gateway: Manifest, set: Manifest, index: ResourceIndex): string | null {
  const namespaces = specOf(gateway, "Gateway").allowedListeners?.namespaces ?? {};
  const from = namespaces.from ?? "None";
  const gw = `Gateway ${gateway.metadata.namespace}/${gateway.metadata.name}`;
  if (from === "All") return null;
  if (from === "Same")
    return set.metadata.namespace === gateway.metadata.namespace ? null : `${gw} takes ListenerSets of its own namespace only`;
  if (from === "Selector") {
    const selector = compileLabelSelector(namespaces.selector);
    if (typeof selector === "string") return `${gw}'s allowedListeners.namespaces.selector: ${selector}`;
    return selector(index.namespaceLabels(set.cluster, set.metadata.namespace))
      ? null
      : `${gw} takes ListenerSets from namespaces its selector picks, not ${set.metadata.namespace}`;
  }
  return `${gw} does not take ListenerSets (its spec.allowedListeners.namespaces.from is ${from})`;
}

/** A ListenerSet's spec, or its experimental predecessor's (of the same shape). */
const setSpec = (set: Manifest): ListenerSetSpec => specOf(set, set.kind === "XListenerSet" ? "XListenerSet" : "ListenerSet");

/** The set's parent as written: group, kind, namespace, name. */
function parentOf(set: Manifest): { namespace: string; name: string } | string {
  const ref = setSpec(set).parentRef;
  // The schema lets any group and kind by.
  if ((ref.group ?? GATEWAY_GROUP) !== GATEWAY_GROUP || (ref.kind ?? "Gateway") !== "Gateway") return "spec.parentRef must be a Gateway";
  return { namespace: ref.namespace ?? set.metadata.namespace, name: ref.name };
}

/**
 * The listeners of every ListenerSet whose Gateway this edge serves, after the Gateways' own; oldest set
 * first. Sets naming a Gateway of another class are not this edge's and are left alone.
 */
export function compileListenerSets(
  index: ResourceIndex,
  gatewayListeners: EdgeListener[],
  clusterOrder: Map<string, number>,
  report: CompileReport,
): { listeners: EdgeListener[]; rejected: RejectedSet[] } {
  const sets = [...index.all("ListenerSet"), ...index.all("XListenerSet")];
  const listeners: EdgeListener[] = [];
  const rejected: RejectedSet[] = [];
  // Port and hostname already taken, per Gateway: the Gateway's own listeners first, then older sets'.
  const taken = new Map<Manifest, Set<string>>();
  const slot = (l: EdgeListener) => `${l.port}/${l.hostname ?? ""}`;
  for (const l of gatewayListeners.filter(isServed)) taken.set(l.gateway, (taken.get(l.gateway) ?? new Set()).add(slot(l)));
  const groups = groupSameObjects(sets, clusterOrder).sort((a, b) => byAge(clusterOrder)(a.served, b.served));
  for (const group of groups) {
    const copies = [group.served, ...group.merged.filter((m) => m !== group.served)];
    const set = group.served;
    const parent = parentOf(set);
    const reject = (reason: Reason, message: string, severity: "error" | "warning" = "error") => {
      report.tell(severity, set, "spec.parentRef", reason, message);
      rejected.push({ copies, reason, message });
    };
    if (typeof parent === "string") {
      reject(REASON.NotAllowed, parent);
      continue;
    }
    const home = gatewayListeners.find(
      (l) =>
        l.clusters.includes(set.cluster) && l.gateway.metadata.namespace === parent.namespace && l.gateway.metadata.name === parent.name,
    );
    if (!home) {
      // Sets of another class's Gateways are not read at all (input/ownership.ts): this one names nothing served.
      reject(REASON.NoMatchingParent, noHome(set, parent, index, gatewayListeners), "warning");
      continue;
    }
    const refused = notAllowed(home.gateway, set, index);
    if (refused) {
      reject(REASON.NotAllowed, refused);
      continue;
    }
    // The set's listeners serve the clusters that hold both the set and its Gateway.
    const clusters = new Set(copies.map((c) => c.cluster));
    const gatewayCopies = home.copies.filter((c) => clusters.has(c.cluster));
    const own = taken.get(home.gateway) ?? new Set<string>();
    taken.set(home.gateway, own);
    for (const [i, entry] of setSpec(set).listeners.entries()) {
      const listener = compileListener(index, gatewayCopies, entry, i, report, copies);
      if (isServed(listener) && own.has(slot(listener))) {
        const message = `port ${listener.port} and hostname ${listener.hostname ?? "(none)"} are taken by a listener of the Gateway or an older ListenerSet`;
        report.refuseTakenListener(set, `spec.listeners[${i}]`, listener, message);
        listener.served = false;
      } else if (isServed(listener)) own.add(slot(listener));
      listeners.push(listener);
    }
  }
  return { listeners, rejected };
}

/** The status of each ListenerSet copy: accepted with its listeners' routes, or why it did not attach. */
export function reportListenerSets(listeners: EdgeListener[], rejected: RejectedSet[], report: CompileReport): void {
  const bySet = new Map<Manifest, EdgeListener[]>();
  for (const l of listeners) if (l.listenerSet) bySet.set(l.listenerSet[0]!, [...(bySet.get(l.listenerSet[0]!) ?? []), l]);
  for (const ls of bySet.values()) {
    const served = ls.filter(isServed).length;
    const conditions = served > 0 ? [accepted(`${served} of ${ls.length} listeners served`), programmed()] : notServed();
    const views = ls.map((l) => report.listenerView(l.id, l.name, l.allowsHTTPRoute));
    for (const copy of ls[0]!.listenerSet!) {
      report.setConditions(copy, conditions);
      report.setListeners(copy, views);
    }
  }
  for (const r of rejected)
    for (const copy of r.copies)
      report.setConditions(copy, [fails("Accepted", r.reason, r.message), fails("Programmed", REASON.Invalid, r.message)]);
}

/** Route parentRef kinds that name a ListenerSet. */
export const isListenerSetRef = (group: string | undefined, kind: string | undefined): boolean =>
  (kind === "ListenerSet" && (group ?? GATEWAY_GROUP) === GATEWAY_GROUP) || (kind === "XListenerSet" && group === X_GROUP);
