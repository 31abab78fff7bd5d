/**
 * @module The one owner of status during a compile. Created once per compile and handed to every stage, it
 * is the only mutable thing the stages share, changed through named methods: an object's conditions, a
 * route's parent entries, a listener accepted, rejected or attached to, a backend's ancestors, an
 * aggregate. It emits every status in one fixed order (by kind, then as the stages reported them), as a
 * Gateway API controller writes each object's status once per reconcile.
 */
import { apiGroup, type Manifest } from "../../gateway-api/manifest";
import { accepted, fails, holds, programmed, type Reason, REASON, resolved, SERVED_PARENT } from "./conditions";
import { type Condition, type ObjectRef, objectRef, parentKey, type ParentRefView, type ResourceStatus } from "./diagnostics";
import { kept } from "../kept";
import { NamedMap } from "../named-map";

/** What a status is about: a manifest, or an object already named. */
export type Subject = Manifest | ObjectRef;

/** A listener's status, as its Gateway (or ListenerSet) writes it. */
export interface ListenerView {
  name: string;
  attachedRoutes: number;
  conditions: Condition[];
  /** The route kinds it supports: HTTPRoute, unless its allowedRoutes.kinds leave that out. */
  supportedKinds: string[];
}

/** The order statuses are emitted in: the GatewayClass, what serves, what routes, what backends. */
/** The kinds whose status kedge writes (the status book holds no other), in the order it emits them. */
export const STATUS_KINDS: readonly string[] = [
  "GatewayClass",
  "Gateway",
  "ListenerSet",
  "XListenerSet",
  "HTTPRoute",
  "GRPCRoute",
  "TLSRoute",
  "TCPRoute",
  "UDPRoute",
  "CompositeBackend",
  "XBackend",
  "BackendLBPolicy",
  "XBackendTrafficPolicy",
  "BackendTLSPolicy",
];
const rank = (kind: string): number => {
  const i = STATUS_KINDS.indexOf(kind);
  return i < 0 ? STATUS_KINDS.length : i;
};

const refOf = (subject: Subject): ObjectRef => ("metadata" in subject ? objectRef(subject) : subject);
/** The scope of one object's status, however it is named: its cluster, API group, kind and namespace. */
const scopeOf = (s: Subject): string =>
  "metadata" in s
    ? `${s.cluster}\u0000${apiGroup(s.apiVersion)}\u0000${s.kind}\u0000${s.metadata.namespace}`
    : `${s.cluster}\u0000${apiGroup(s.apiVersion ?? "")}\u0000${s.kind}\u0000${s.namespace}`;
const nameOf = (s: Subject): string => ("metadata" in s ? s.metadata.name : s.name);

/**
 * A status while the compile writes it: its object as it was first reported, made an ObjectRef only when the
 * statuses are read, not held while the routes compile (with the shared conditions below, 100k routes' statuses
 * took 28 MB at the compile's peak, measured, where they took 43).
 */
type Entry = Omit<ResourceStatus, "object"> & { object: Subject };

export class StatusBook {
  /** Found by scope and name for every report about an object, so no ObjectRef is made to find it. */
  private readonly entries = new NamedMap<Entry>();
  /** Every status, in the order objects were first reported. */
  private readonly reported: Entry[] = [];
  private readonly listenerStates = new Map<string, { conditions: Condition[]; attachedRoutes: number }>();
  /**
   * The parents of a route that attached to one parent with nothing to say (most routes), by that parent: one
   * frozen list for all of them, not a list, an entry and a parentRef each.
   */
  private readonly servedAt = new Map<string, NonNullable<ResourceStatus["parents"]>>();

  /**
   * The last subject asked for, and its status: a route is told of itself and its parents one call after another
   * (a 100k-route push's profile: 123 ms in these lookups, 80 ms with this).
   */
  private lastSubject?: Subject;
  private lastStatus?: Entry;

  /** The status of `subject`, created empty on first use (in the order objects are first reported). */
  private entry(subject: Subject): Entry {
    if (subject === this.lastSubject) return this.lastStatus!;
    this.lastSubject = subject;
    return (this.lastStatus = this.find(subject));
  }

  private find(subject: Subject): Entry {
    const scope = scopeOf(subject);
    let status = this.entries.get(scope, nameOf(subject));
    if (!status) {
      status = { object: subject, conditions: kept([]) };
      this.entries.set(scope, nameOf(subject), status);
      this.reported.push(status);
    }
    return status;
  }

  /** An object's own conditions (replacing what it had). */
  setConditions(subject: Subject, conditions: Condition[]): void {
    this.entry(subject).conditions = conditions;
  }

  /** A route (or another object with parents) without a verdict of its own: its parents say it all. */
  noteParents(subject: Subject): void {
    const status = this.entry(subject);
    status.parents ??= [];
  }

  /** A route's verdict for one of its parentRefs (status.parents). */
  addParent(route: Subject, parentRef: ParentRefView, conditions: Condition[]): void {
    const status = this.entry(route);
    if (!status.parents?.length && conditions === SERVED_PARENT) {
      const key = parentKey(parentRef);
      let shared = this.servedAt.get(key);
      if (!shared) {
        shared = Object.freeze([Object.freeze({ parentRef: Object.freeze(parentRef), conditions })]) as NonNullable<
          ResourceStatus["parents"]
        >;
        this.servedAt.set(key, shared);
      }
      status.parents = shared;
      return;
    }
    status.parents = kept([...(status.parents ?? []), { parentRef, conditions }]);
  }

  /** The clusters (and a merged route's backends) an aggregate draws from. */
  setAggregate(subject: Subject, aggregate: NonNullable<ResourceStatus["aggregate"]>): void {
    this.entry(subject).aggregate = aggregate;
  }

  /** A Gateway's addresses, as hostnames. */
  setAddresses(subject: Subject, hostnames: string[]): void {
    if (hostnames.length > 0) this.entry(subject).addresses = hostnames;
  }

  /** The GatewayClass's supported features. */
  setSupportedFeatures(subject: Subject, features: string[]): void {
    this.entry(subject).supportedFeatures = features;
  }

  /** The Gateways of its cluster a backend or policy is used through, each with the object's own conditions. */
  setAncestors(subject: Subject, ancestors: { namespace: string; name: string }[]): void {
    const status = this.entry(subject);
    status.ancestors = ancestors.map((ancestorRef) => ({ ancestorRef, conditions: status.conditions }));
  }

  /** A Gateway's (or ListenerSet's) listener statuses, and how many ListenerSets attached to a Gateway. */
  setListeners(subject: Subject, listeners: ListenerView[], attachedListenerSets?: number): void {
    const status = this.entry(subject);
    status.listeners = listeners;
    if (attachedListenerSets) status.attachedListenerSets = attachedListenerSets;
  }

  private listenerState(id: string) {
    let state = this.listenerStates.get(id);
    if (!state) {
      state = { conditions: [], attachedRoutes: 0 };
      this.listenerStates.set(id, state);
    }
    return state;
  }

  /** A listener served: Accepted, Programmed, then `notes` (a ResolvedRefs that fails, say), else ResolvedRefs. */
  acceptListener(id: string, notes: Condition[] = []): void {
    const hasRefs = notes.some((c) => c.type === "ResolvedRefs");
    this.listenerState(id).conditions = [accepted(), programmed(), ...notes, ...(hasRefs ? [] : [resolved()])];
  }

  /** A listener that cannot be served, and why. */
  rejectListener(id: string, reason: Reason, message: string): void {
    this.listenerState(id).conditions = [fails("Accepted", reason, message), fails("Programmed", REASON.Invalid, message)];
  }

  /** A listener that shares its port and hostname with another: neither is served. */
  conflictListener(id: string, message: string): void {
    this.listenerState(id).conditions = [fails("Accepted", REASON.HostnameConflict, message), holds("Conflicted", REASON.HostnameConflict)];
  }

  /** A route attached to the listener. */
  attachRoute(id: string): void {
    this.listenerState(id).attachedRoutes++;
  }

  /** The listener's status, for its Gateway's or ListenerSet's. */
  listenerView(id: string, name: string, allowsHTTPRoute: boolean): ListenerView {
    const { conditions, attachedRoutes } = this.listenerState(id);
    return { name, attachedRoutes, conditions, supportedKinds: allowsHTTPRoute ? ["HTTPRoute"] : [] };
  }

  /** Every status, by kind (the GatewayClass first, then Gateways, ListenerSets, routes, backends, policies). */
  statuses(): ResourceStatus[] {
    for (const status of this.reported) status.object = refOf(status.object);
    return (this.reported as ResourceStatus[])
      .map((status, order) => ({ status, order }))
      .sort((a, b) => rank(a.status.object.kind) - rank(b.status.object.kind) || a.order - b.order)
      .map((e) => e.status);
  }
}
