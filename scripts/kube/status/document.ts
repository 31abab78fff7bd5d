/**
 * @module An object's `status` as a Gateway API controller writes it, from the compiler's verdict: the
 * fields kedge owns, built over what the object's status already holds. Another controller's entries
 * (`parents` and `ancestors` entries of another controllerName) are kept as they are; a condition whose
 * status did not change keeps its lastTransitionTime (as the API's meta.SetStatusCondition does). Used
 * for `--status-out` files (nothing before) and for the status written back to a cluster.
 */
import { GATEWAY_GROUP } from "../../../src/compile/input/api-groups";
import type { Condition, ResourceStatus } from "../../../src/compile/status/diagnostics";
import { canonicalJson } from "../../../src/table/canonical-json";
import { KEDGE_CONTROLLER } from "../../../src/compile/input/api-groups";

type Json = Record<string, unknown>;

/** PolicyStatus kinds: their status holds ancestors only. */
const POLICY_KINDS = new Set(["BackendTLSPolicy", "BackendLBPolicy", "XBackendTrafficPolicy"]);
/** Kinds whose whole status is their controller's: a field kedge no longer sets is removed (null in a merge patch). */
const OWNED_KINDS = new Set(["Gateway", "ListenerSet", "XListenerSet"]);

interface ApiCondition {
  type: string;
  status: string;
  reason: string;
  message: string;
  observedGeneration?: number;
  lastTransitionTime: string;
}

const asList = (value: unknown): Json[] =>
  Array.isArray(value) ? value.filter((v): v is Json => typeof v === "object" && v !== null) : [];

/** Conditions as the API writes them; observedGeneration only when the object had a generation to observe. */
function conditions(list: Condition[], at: string, generation: number | undefined, before: unknown): ApiCondition[] {
  const previous = asList(before);
  return list.map((c) => {
    const same = previous.find((p) => p.type === c.type && p.status === c.status);
    return {
      type: c.type,
      status: c.status,
      reason: c.reason,
      message: c.message,
      ...(generation !== undefined ? { observedGeneration: generation } : {}),
      lastTransitionTime: typeof same?.lastTransitionTime === "string" ? same.lastTransitionTime : at,
    };
  });
}

/** The same reference, whichever defaults it spells out (group, kind, namespace). */
const sameRef = (a: unknown, b: Json, namespace: string): boolean => {
  const x = (a ?? {}) as Json;
  const key = (r: Json) =>
    [r.group ?? GATEWAY_GROUP, r.kind ?? "Gateway", r.namespace ?? namespace, r.name, r.sectionName ?? "", r.port ?? ""].join("|");
  return key(x) === key(b);
};

/**
 * One list of per-parent entries (`parents` or `ancestors`, under `refKey`): others' entries as they were,
 * then kedge's, each with its conditions' transition times carried over from kedge's entry before.
 */
function entries(
  ours: { ref: Json; conditions: Condition[] }[],
  refKey: "parentRef" | "ancestorRef",
  before: unknown,
  at: string,
  generation: number | undefined,
  namespace: string,
  controller: string,
): Json[] {
  const previous = asList(before);
  const others = previous.filter((e) => e.controllerName !== controller);
  const mine = previous.filter((e) => e.controllerName === controller);
  return [
    ...others,
    ...ours.map(({ ref, conditions: list }) => ({
      [refKey]: ref,
      controllerName: controller,
      conditions: conditions(list, at, generation, mine.find((e) => sameRef(e[refKey], ref, namespace))?.conditions),
    })),
  ];
}

/**
 * The status fields `controller` writes for `s`, over `before` (the object's status now, if read from a
 * cluster): for a Gateway or ListenerSet a field it no longer sets is null (a merge patch removes it).
 * `at` is the time a changed condition transitioned (RFC 3339, seconds).
 */
export function statusDocument(s: ResourceStatus, at: string, before: Json = {}, controller = KEDGE_CONTROLLER): Json {
  const generation = s.object.generation;
  const namespace = s.object.namespace;
  const status: Json = {};
  const gateway = (ref: { namespace: string; name: string }) => ({ group: GATEWAY_GROUP, kind: "Gateway", ...ref });
  if (s.ancestors) {
    // A policy's PolicyStatus, and an XBackend's status since the PR's review, name them ancestors.
    const ours = s.ancestors.map((a) => ({ ref: gateway(a.ancestorRef), conditions: a.conditions }));
    status.ancestors = entries(ours, "ancestorRef", before.ancestors, at, generation, namespace, controller);
    // Used through no Gateway (yet): kedge's own verdict on the object is kept, not lost (a PolicyStatus has no place for it).
    if (s.ancestors.length === 0 && !POLICY_KINDS.has(s.object.kind) && s.conditions.length > 0)
      status.conditions = conditions(s.conditions, at, generation, before.conditions);
  } else if (s.parents) {
    const ours = s.parents.map((p) => ({ ref: { group: GATEWAY_GROUP, kind: "Gateway", ...p.parentRef }, conditions: p.conditions }));
    status.parents = entries(ours, "parentRef", before.parents, at, generation, namespace, controller);
  } else {
    status.conditions = conditions(s.conditions, at, generation, before.conditions);
  }
  if (s.supportedFeatures) status.supportedFeatures = s.supportedFeatures.map((name) => ({ name }));
  const owned = OWNED_KINDS.has(s.object.kind);
  if (s.attachedListenerSets !== undefined || owned) status.attachedListenerSets = s.attachedListenerSets ?? null;
  if (s.addresses || owned) status.addresses = s.addresses ? s.addresses.map((value) => ({ type: "Hostname", value })) : null;
  if (s.listeners) {
    const listenersBefore = asList(before.listeners);
    status.listeners = s.listeners.map((l) => ({
      name: l.name,
      attachedRoutes: l.attachedRoutes,
      supportedKinds: (l.supportedKinds ?? ["HTTPRoute"]).map((kind) => ({ group: GATEWAY_GROUP, kind })),
      conditions: conditions(l.conditions, at, generation, listenersBefore.find((b) => b.name === l.name)?.conditions),
    }));
  }
  return status;
}

/** Whether writing `status` would change what `before` holds (only the fields `status` names are written; null is absent). */
export const changesStatus = (status: Json, before: Json): boolean =>
  Object.entries(status).some(([key, value]) => canonicalJson(value ?? null) !== canonicalJson(before[key] ?? null));

/** Whether `status` names `controller` in a parents or ancestors entry (an entry kedge wrote, perhaps no longer true). */
export const namesController = (status: Json, controller: string): boolean =>
  [...asList(status.parents), ...asList(status.ancestors)].some((e) => e.controllerName === controller);

/** RFC 3339 to the second, as the API writes lastTransitionTime. */
export const transitionTime = (now: Date): string => now.toISOString().replace(/\.\d+Z$/, "Z");
