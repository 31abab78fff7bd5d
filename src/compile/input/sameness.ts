/**
 * @module Namespace sameness (KEP-1645): objects of one API group, kind, namespace and name in several
 * clusters are one object. Copies whose specs are equal (Gateway API defaults applied, so a `kubectl get`
 * dump and hand-written YAML of one object compare equal) merge; when copies differ, the oldest
 * (creationTimestamp, then cluster order) is served and the first field where another copy differs is
 * named in that copy's report.
 */
import { apiGroup, isJsonObject, type JsonObject, type Manifest } from "../../gateway-api/manifest";
import { GATEWAY_GROUP } from "./api-groups";
import { NamedMap } from "../named-map";

/** The copies of one object across clusters, oldest first. */
export interface SameObject {
  /** The copy that is served: the oldest. */
  served: Manifest;
  /** Copies whose spec equals the served one's, the served one included, in the edge's cluster order. */
  merged: Manifest[];
  /** Copies whose spec differs from the served one's, each with the first field that differs. */
  differing: { copy: Manifest; field: string }[];
}

/** What an object's identity holds besides its name: its API group, kind and namespace. */
const sameObjectScope = (m: Manifest): string => `${apiGroup(m.apiVersion)}\u0000${m.kind}\u0000${m.metadata.namespace}`;

/** An object's identity across clusters (namespace sameness): its API group, kind, namespace and name. */
export const sameObjectKey = (m: Manifest): string => `${sameObjectScope(m)}\u0000${m.metadata.name}`;

/**
 * Oldest first: creationTimestamp (a copy without one after those with one), then the edge's cluster order.
 * RFC 3339 timestamps in UTC, as the API server writes them, order as text.
 */
export function byAge(clusterOrder: Map<string, number>): (a: Manifest, b: Manifest) => number {
  return (a, b) => {
    const ta = a.metadata.creationTimestamp ?? "";
    const tb = b.metadata.creationTimestamp ?? "";
    const age = ta && tb ? (ta < tb ? -1 : ta > tb ? 1 : 0) : Number(ta === "") - Number(tb === "");
    return age || (clusterOrder.get(a.cluster) ?? 0) - (clusterOrder.get(b.cluster) ?? 0);
  };
}

/**
 * The copies of each object across clusters: `objects` grouped by identity, copies in read order, each group
 * where its first copy that `leads` was read (its first copy, when none does).
 */
export function* copiesOfEach(objects: Manifest[], leads: (m: Manifest) => boolean = () => true): Generator<Manifest[]> {
  const byName = new NamedMap<Manifest[]>();
  // Each object's group, by index: looked up once per object, not again when the groups are given out.
  const groupOf: Manifest[][] = [];
  for (const m of objects) {
    const scope = sameObjectScope(m);
    let copies = byName.get(scope, m.metadata.name);
    if (copies) copies.push(m);
    else byName.set(scope, m.metadata.name, (copies = [m]));
    groupOf.push(copies);
  }
  // A group's lead, found once per group (not once per copy).
  const leadOf = new Map<Manifest[], Manifest>();
  for (const [i, m] of objects.entries()) {
    const copies = groupOf[i]!;
    if (copies.length === 1) {
      yield copies;
      continue;
    }
    let lead = leadOf.get(copies);
    if (lead === undefined) leadOf.set(copies, (lead = copies.find(leads) ?? copies[0]!));
    if (m === lead) yield copies;
  }
}

/** One object's copies as sameness sees them: the oldest served, the others merged with it or differing. */
export function sameObjectOf(copies: Manifest[], clusterOrder: Map<string, number>): SameObject {
  // One copy (most objects): nothing to compare.
  if (copies.length === 1) return { served: copies[0]!, merged: copies, differing: [] };
  const inClusterOrder = (a: Manifest, b: Manifest) => (clusterOrder.get(a.cluster) ?? 0) - (clusterOrder.get(b.cluster) ?? 0);
  const [served, ...others] = [...copies].sort(byAge(clusterOrder)) as [Manifest, ...Manifest[]];
  const spec = normalizedSpec(served);
  const merged = [served];
  const differing: SameObject["differing"] = [];
  for (const copy of others) {
    const field = firstDifference(spec, normalizedSpec(copy), "spec");
    if (field === null) merged.push(copy);
    else differing.push({ copy, field });
  }
  return { served, merged: merged.sort(inClusterOrder), differing };
}

/** Groups `objects` by identity across clusters; groups keep the order their first copy was read in. */
export function groupSameObjects(objects: Manifest[], clusterOrder: Map<string, number>): SameObject[] {
  return Array.from(copiesOfEach(objects), (copies) => sameObjectOf(copies, clusterOrder));
}

/** The clusters of a group's merged copies, in cluster order. */
export const clustersOf = (group: SameObject): string[] => group.merged.map((m) => m.cluster);

/**
 * The first field (a path such as `spec.rules[0].backendRefs[1].weight`) where two JSON values differ,
 * or null when they are equal. Object keys are compared in sorted order, so the answer is stable.
 */
export function firstDifference(a: unknown, b: unknown, path: string): string | null {
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.max(a.length, b.length); i++) {
      const at = firstDifference(a[i], b[i], `${path}[${i}]`);
      if (at !== null) return at;
    }
    return null;
  }
  if (isJsonObject(a) && isJsonObject(b)) {
    for (const key of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()) {
      const at = firstDifference(a[key], b[key], `${path}.${key}`);
      if (at !== null) return at;
    }
    return null;
  }
  return a === b ? null : path;
}

/** Sets `key` to `value` on a mapping that lacks it. */
const fill = (o: unknown, key: string, value: unknown) => {
  if (isJsonObject(o) && o[key] === undefined) o[key] = value;
};
const each = (list: unknown, visit: (item: JsonObject) => void) => {
  if (Array.isArray(list)) for (const item of list) if (isJsonObject(item)) visit(item);
};
const defaultPath = () => ({ type: "PathPrefix", value: "/" });

/** A backendRef (or a mirror's backendRef) as the API server stores it. */
function backendRefDefaults(ref: JsonObject, weighted: boolean): void {
  fill(ref, "group", "");
  fill(ref, "kind", "Service");
  if (weighted) fill(ref, "weight", 1);
}

function filterDefaults(filter: JsonObject): void {
  fill(filter.requestRedirect, "statusCode", 302);
  if (isJsonObject(filter.requestMirror) && isJsonObject(filter.requestMirror.backendRef))
    backendRefDefaults(filter.requestMirror.backendRef, false);
}

/** The defaults the HTTPRoute CRD's schema gives fields left out. */
function httpRouteDefaults(spec: JsonObject): void {
  each(spec.parentRefs, (p) => {
    fill(p, "group", GATEWAY_GROUP);
    fill(p, "kind", "Gateway");
  });
  fill(spec, "rules", [{}]);
  each(spec.rules, (rule) => {
    fill(rule, "matches", [{}]);
    each(rule.matches, (match) => {
      fill(match, "path", defaultPath());
      fill(match.path, "type", "PathPrefix");
      fill(match.path, "value", "/");
      each(match.headers, (h) => fill(h, "type", "Exact"));
      each(match.queryParams, (q) => fill(q, "type", "Exact"));
    });
    each(rule.filters, filterDefaults);
    each(rule.backendRefs, (ref) => {
      backendRefDefaults(ref, true);
      each(ref.filters, filterDefaults);
    });
  });
}

/** The defaults the Gateway CRD's schema gives fields left out. */
function gatewayDefaults(spec: JsonObject): void {
  each(spec.listeners, (listener) => {
    fill(listener, "allowedRoutes", {});
    fill(listener.allowedRoutes, "namespaces", {});
    fill(isJsonObject(listener.allowedRoutes) ? listener.allowedRoutes.namespaces : undefined, "from", "Same");
  });
}

/** The object's spec with the defaults of its kind filled in (a copy; the manifest is left alone). */
export function normalizedSpec(m: Manifest): JsonObject {
  const spec = structuredClone(m.spec);
  if (apiGroup(m.apiVersion) === GATEWAY_GROUP) {
    if (m.kind === "HTTPRoute") httpRouteDefaults(spec);
    else if (m.kind === "Gateway") gatewayDefaults(spec);
  }
  return spec;
}
