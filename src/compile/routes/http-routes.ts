/**
 * @module HTTPRoutes: validates each route, attaches it to listeners through its parentRefs
 * (sectionName, port, allowedRoutes, hostname intersection) and records per-parent conditions. A route
 * applied identically to several clusters is one route (namespace sameness) whose Service backendRefs
 * resolve in each of those clusters; a copy that differs from the oldest is reported and not served.
 */
import type { CompileReport } from "../status/compile-report";

import { hostnameProblem, intersectHostnames } from "../../gateway-api/hostname";
import { letGoOfSpec, type Manifest } from "../../gateway-api/manifest";
import type { CompiledBackendRef, CompiledFilter, CompiledRetry, CompiledSession } from "../../table/route-table";
import { GATEWAY_GROUP } from "../input/api-groups";
import { type BackendContext, filterContext, resolveBackendRefs, type RouteScope } from "./backend-refs";
import { accepted, acceptedParent, fails, holds, REASON, resolved, unsupported } from "../status/conditions";
import { type Condition, parentKey, type ParentRefView } from "../status/diagnostics";
import { compileFilters } from "./filters";
import { type EdgeListener, isServed } from "../gateways/listener";
import { isListenerSetRef } from "../gateways/listener-sets";
import { compileMatches, type MatchDraft } from "./route-matches";
import { compileRetry } from "./retry";
import { ruleSession } from "./rule-session";
import { compileTimeouts } from "./timeouts";
import { copiesOfEach, sameObjectKey, sameObjectOf } from "../input/sameness";
import { missingBackendsOfCopy } from "./unserved-copy-refs";
import { suggestion } from "../../table/did-you-mean";
import { type HTTPRouteRule, type ParentReference, specOf } from "../input/typed-objects";
import { type FieldProblem, isProblem } from "../status/problems";
import { kept } from "../kept";

export interface RuleDraft {
  index: number;
  matches: MatchDraft[];
  /** Why the rule is unusable though its matches are valid: it keeps its matches and answers 500. */
  invalid?: string;
  filters: CompiledFilter[];
  backendRefs: CompiledBackendRef[];
  timeouts?: { requestMs?: number; backendRequestMs?: number };
  retry?: CompiledRetry;
  session?: CompiledSession;
}

/** One accepted route attached to one listener, serving `hostnames` (null: every host). */
export interface Attachment {
  listener: EdgeListener;
  hostnames: string[] | null;
}

export interface RouteDraft {
  /** The route as served: the oldest of its identical copies. */
  manifest: Manifest;
  /** The clusters whose identical copies this route stands for (its own cluster when it has no copies). */
  clusters: string[];
  rules: RuleDraft[];
  attachments: Attachment[];
}

/**
 * What a route's rules find that is told only once the route is known to be served (a route no listener takes
 * has nothing to say of its rules): references that did not resolve (which its ResolvedRefs condition also
 * names), warnings, and notes (infos, such as a deprecated field). Told to the report once, in that order.
 */
class HeldFindings {
  readonly unresolved: FieldProblem[] = [];
  readonly warnings: FieldProblem[] = [];
  readonly notes: FieldProblem[] = [];

  tellInto(report: CompileReport, route: Manifest): void {
    for (const u of this.unresolved)
      report.error(route, u.field, u.reason, `${u.message}; ${u.effect ?? "requests for its share answer 500"}`);
    for (const w of this.warnings) report.warn(route, w.field, w.reason, w.message);
    for (const n of this.notes) report.info(route, n.field, n.reason, n.message);
  }

  /** Keeps what a rule found (once the rule is known to be kept). */
  take(rule: HeldFindings): void {
    this.unresolved.push(...rule.unresolved);
    this.warnings.push(...rule.warnings);
    this.notes.push(...rule.notes);
  }
}

/** One rule, or the first problem that makes it unusable (with its matches, when those are valid). */
function compileRule(
  ctx: BackendContext,
  scope: RouteScope,
  rule: HTTPRouteRule,
  i: number,
  held: HeldFindings,
): { draft: RuleDraft } | { problem: FieldProblem; matches?: MatchDraft[] } {
  const matches = compileMatches(rule.matches, `spec.rules[${i}].matches`);
  if (isProblem(matches)) return { problem: matches };
  // A rule dropped keeps nothing it found: its problem is what is told of it.
  const own = new HeldFindings();
  const draft = compileRuleBody(ctx, scope, rule, i, matches, own);
  if (isProblem(draft)) return { problem: draft, matches };
  held.take(own);
  return { draft };
}

/** Everything of a rule after its matches: filters, backendRefs, timeouts, retry, session persistence. */
function compileRuleBody(
  ctx: BackendContext,
  scope: RouteScope,
  rule: HTTPRouteRule,
  i: number,
  matches: MatchDraft[],
  held: HeldFindings,
): RuleDraft | FieldProblem {
  const at = `spec.rules[${i}]`;
  const filters = compileFilters(rule.filters, `${at}.filters`, filterContext(ctx, scope, matches, held.unresolved, "rule"));
  if (isProblem(filters)) return filters;
  const hasRedirect = filters.some((f) => f.type === "RequestRedirect");
  if (hasRedirect && (rule.backendRefs ?? []).length > 0) {
    return unsupported(`${at}.filters`, "RequestRedirect cannot be combined with backendRefs");
  }
  const refs = resolveBackendRefs(ctx, scope, rule.backendRefs, `${at}.backendRefs`, matches);
  if (refs.rejected) return refs.rejected;
  held.unresolved.push(...refs.unresolved);
  held.warnings.push(...refs.partial);
  const timeouts = compileTimeouts(rule.timeouts, `${at}.timeouts`);
  if (isProblem(timeouts)) return timeouts;
  const retry = compileRetry(rule.retry, `${at}.retry`);
  if (isProblem(retry)) return retry;
  const session = ruleSession(ctx, scope.route, rule, i, refs.refs, held);
  if (isProblem(session)) return session;
  return {
    index: i,
    matches,
    filters,
    backendRefs: refs.refs,
    timeouts,
    ...(retry ? { retry } : {}),
    ...(session ? { session } : {}),
  };
}

/**
 * The route's rules. A rule with an unusable value is dropped and the others are served (the Gateway API's
 * "Dropped Rule" approach to a partially invalid route); when the dropped rule's matches are valid they stay,
 * answering 500, so its requests never reach another rule without its filters. A problem of the rules list
 * itself, or no valid rule left, rejects the route: then the problems are returned.
 */
function compileRules(
  ctx: BackendContext,
  scope: RouteScope,
): { rules: RuleDraft[]; dropped: DroppedRule[]; held: HeldFindings } | FieldProblem[] {
  const raw = specOf(scope.route, "HTTPRoute").rules ?? [{}];
  const rules: RuleDraft[] = [];
  const dropped: DroppedRule[] = [];
  const held = new HeldFindings();
  for (const [i, rule] of raw.entries()) {
    const compiled = compileRule(ctx, scope, rule, i, held);
    if ("problem" in compiled) {
      const { problem, matches } = compiled;
      dropped.push({ ...problem, index: i, answers500: matches !== undefined });
      // Kept in its place among the valid rules, answering 500.
      if (matches) rules.push({ index: i, matches, invalid: `${problem.field}: ${problem.message}`, filters: [], backendRefs: [] });
      continue;
    }
    rules.push(compiled.draft);
  }
  if (dropped.length > 0 && rules.every((r) => r.invalid)) return dropped;
  // A CEL rule: 16 rules of 64 matches each pass the schema.
  if (rules.reduce((n, r) => n + r.matches.length, 0) > 128)
    return [unsupported("spec.rules", "a route may have at most 128 matches in total")];
  return { rules: kept(rules), dropped, held };
}

/** A rule left out of its route, and whether its (valid) matches stay to answer 500. */
interface DroppedRule extends FieldProblem {
  index: number;
  answers500: boolean;
}

const droppedEffect = (d: DroppedRule) => (d.answers500 ? "its requests answer 500" : "its matches are not served");

/** Which rules were dropped and why; the Gateway API asks the message to start with "Dropped Rule". */
function droppedRulesMessage(dropped: DroppedRule[]): string {
  return dropped.map((d) => `Dropped Rule ${d.index} (${droppedEffect(d)}): ${d.field}: ${d.message}`).join("; ");
}

/** The route's hostnames; the schema's pattern lets an IP address or a label over 63 characters by. */
function routeHostnames(route: Manifest): string[] | FieldProblem {
  const raw = specOf(route, "HTTPRoute").hostnames ?? [];
  for (const [i, h] of raw.entries()) {
    const problem = hostnameProblem(h, true);
    if (problem) return unsupported(`spec.hostnames[${i}]`, `hostname ${JSON.stringify(h)} ${problem}`);
  }
  return raw;
}

interface ParentOutcome {
  parentRef: ParentRefView;
  attachments: Attachment[];
  condition: Condition;
}

/** The listeners, in the route's cluster, of the Gateway (or ListenerSet) a parentRef names: none when this edge serves no such parent. */
function parentListeners(route: Manifest, parent: ParentReference, listeners: EdgeListener[]): EdgeListener[] {
  const namespace = parent.namespace ?? route.metadata.namespace;
  const toSet = isListenerSetRef(parent.group, parent.kind);
  // A Gateway's own listeners, or a ListenerSet's: a route names one or the other as its parent.
  const owner = (l: EdgeListener) => (toSet ? l.listenerSet?.[0] : l.listenerSet ? undefined : l.gateway);
  return listeners.filter((l) => {
    const o = owner(l);
    return o !== undefined && l.clusters.includes(route.cluster) && o.metadata.namespace === namespace && o.metadata.name === parent.name;
  });
}

/** Whether a copy of a route names a Gateway (or ListenerSet) this edge serves in its cluster: it attaches, or is told why not. */
const namesOwnParent = (route: Manifest, listeners: EdgeListener[]): boolean =>
  gatewayParents(route).some((p) => parentListeners(route, p, listeners).length > 0);

function attachToParent(route: Manifest, parent: ParentReference, hostnames: string[], listeners: EdgeListener[]): ParentOutcome | null {
  const namespace = parent.namespace ?? route.metadata.namespace;
  const { name, sectionName: section, port } = parent;
  const toSet = isListenerSetRef(parent.group, parent.kind);
  const parentRef: ParentRefView = {
    ...(toSet ? { group: parent.group ?? GATEWAY_GROUP, kind: String(parent.kind) } : {}),
    namespace,
    name,
    sectionName: section,
    port,
  };
  const ofGateway = parentListeners(route, parent, listeners);
  if (ofGateway.length === 0) return null; // not a Gateway (or ListenerSet) this edge serves
  const named = ofGateway.filter(
    (l) => isServed(l) && (section === undefined || l.name === section) && (port === undefined || l.port === port),
  );
  const parentName = `${toSet ? "ListenerSet" : "Gateway"} ${namespace}/${name}`;
  if (named.length === 0) {
    return {
      parentRef,
      attachments: [],
      condition: fails(
        "Accepted",
        REASON.NoMatchingParent,
        `${parentName} has no served listener${section ? ` named ${section}` : ""}${port ? ` on port ${port}` : ""}${
          section
            ? suggestion(
                section,
                ofGateway.filter(isServed).map((l) => l.name),
                "served listeners",
              )
            : ""
        }`,
      ),
    };
  }
  const allowed = named.filter((l) => l.allowsHTTPRoute && l.allowsNamespace(route.metadata.namespace, route.cluster));
  if (allowed.length === 0) {
    return {
      parentRef,
      attachments: [],
      condition: fails(
        "Accepted",
        REASON.NotAllowedByListeners,
        `listeners of ${parentName} do not allow HTTPRoutes from namespace ${route.metadata.namespace}`,
      ),
    };
  }
  const attachments = allowed.flatMap((listener) => {
    const effective = listener.addresses
      ? [...new Set(listener.addresses.flatMap((a) => intersectHostnames(a, hostnames) ?? []))].sort()
      : intersectHostnames(listener.hostname, hostnames);
    return effective !== null && effective.length === 0 ? [] : [{ listener, hostnames: effective }];
  });
  if (attachments.length === 0) {
    return {
      parentRef,
      attachments,
      condition: fails("Accepted", REASON.NoMatchingListenerHostname, `no route hostname intersects a listener hostname of ${parentName}`),
    };
  }
  return { parentRef, attachments, condition: accepted() };
}

/** Gateway and ListenerSet parentRefs of a route (other kinds of parent are not this edge's). */
function gatewayParents(route: Manifest): ParentReference[] {
  return (specOf(route, "HTTPRoute").parentRefs ?? []).filter(
    (p) => ((p.group ?? GATEWAY_GROUP) === GATEWAY_GROUP && (p.kind ?? "Gateway") === "Gateway") || isListenerSetRef(p.group, p.kind),
  );
}

/** One copy of a route and how each of its parentRefs attached. */
interface AttachedCopy {
  route: Manifest;
  outcomes: ParentOutcome[];
}

/**
 * The Gateways (or ListenerSets) of this edge a parentRef could have meant: those of the route's cluster in the
 * parentRef's namespace by name, else every one of the cluster as namespace/name.
 */
function parentHint(route: Manifest, parent: ParentReference, listeners: EdgeListener[]): string {
  const toSet = isListenerSetRef(parent.group, parent.kind);
  const owners = listeners
    .filter((l) => l.clusters.includes(route.cluster) && (toSet ? l.listenerSet : !l.listenerSet))
    .map((l) => (toSet ? l.listenerSet![0]! : l.gateway).metadata);
  const namespace = parent.namespace ?? route.metadata.namespace;
  const here = owners.filter((o) => o.namespace === namespace).map((o) => o.name);
  const what = toSet ? "ListenerSet" : "Gateway";
  return here.length > 0
    ? suggestion(parent.name, here, `${what}s of this edge in namespace ${namespace}`)
    : suggestion(
        `${namespace}/${parent.name}`,
        owners.map((o) => `${o.namespace}/${o.name}`),
        `${what}s of this edge in cluster ${route.cluster}`,
      );
}

/**
 * How each copy of one route attached; copies naming no Gateway of this edge are reported and left out. A copy
 * left out while another cluster's copy of the route attaches, or is another controller's (input/ownership.ts), is
 * a warning (that cluster's Gateway may simply not be there); so is a route with no Gateway parentRef at all. A
 * route whose parentRefs name Gateways and no copy of which attaches anywhere serves nothing that was written: an
 * error (`sync --strict` refuses it, `validate` fails on it), a mistyped parentRef.
 */
function attachCopies(
  copies: Manifest[],
  listeners: EdgeListener[],
  report: CompileReport,
  othersRoutes: ReadonlySet<string>,
): AttachedCopy[] {
  const attached: AttachedCopy[] = [];
  const left: { route: Manifest; parents: ParentReference[] }[] = [];
  for (const route of copies) {
    const parents = gatewayParents(route);
    const hostnames = routeHostnames(route);
    const outcomes = parents.flatMap((p) => attachToParent(route, p, Array.isArray(hostnames) ? hostnames : [], listeners) ?? []);
    if (outcomes.length > 0) attached.push({ route, outcomes });
    else left.push({ route, parents });
  }
  const served = attached.length > 0;
  for (const { route, parents } of left) {
    const named = parents.map((p) => p.name).join(", ");
    const mistyped = parents.length > 0 && !served && !othersRoutes.has(sameObjectKey(route));
    report[mistyped ? "error" : "warn"](
      route,
      "spec.parentRefs",
      REASON.NoMatchingParent,
      named
        ? `no Gateway of this edge named ${named} in cluster ${route.cluster}; ${served ? "this copy is" : "route"} ignored${parentHint(route, parents[0]!, listeners)}`
        : `route has no Gateway parentRef; ${served ? "this copy is " : ""}ignored`,
    );
  }
  return attached;
}

/** What a merged route's cluster-local backends (Service, XBackend) draw from: "Service shop/web:8080 from east, west". */
function mergedBackends(ctx: BackendContext, rules: RuleDraft[]): string[] {
  const sources = new Map<string, string>();
  for (const ref of rules.flatMap((r) => r.backendRefs)) {
    const backend = ref.backend ? ctx.backends.get(ref.backend) : undefined;
    if (!backend || (backend.source.kind !== "Service" && backend.source.kind !== "XBackend")) continue;
    const { kind, namespace, name, cluster } = backend.source;
    // Where its endpoints are, not only where the object is: a cluster whose endpoints were all left out adds nothing.
    const found = cluster.split(",");
    const serving = found.filter((c) => backend.endpoints.some((e) => e.cluster === c));
    const empty = found.filter((c) => !serving.includes(c));
    sources.set(
      backend.id,
      `${kind} ${namespace}/${name}:${backend.port} from ${serving.join(", ") || "no cluster"}${empty.length ? ` (no endpoints in ${empty.join(", ")})` : ""}`,
    );
  }
  return [...sources.values()];
}

/** The parents the copies attached to, by parentKey. */
const acceptedParents = (copies: AttachedCopy[]): ReadonlySet<string> =>
  new Set(copies.flatMap((c) => c.outcomes.filter((o) => o.condition.status === "True").map((o) => parentKey(o.parentRef))));
const NO_PARENTS: ReadonlySet<string> = new Set();

/** A copy whose spec differs from the served copy's, and the first field where it does. */
interface DifferingCopy {
  copy: AttachedCopy;
  field: string;
}

/**
 * The clusters a route stands for: every cluster holding a copy, identical or not (in the edge's cluster order).
 * A copy that differs keeps its cluster's capacity: the served spec's Service backendRefs resolve there too.
 */
function routeClusters(copies: AttachedCopy[], clusterOrder: Map<string, number>): string[] {
  if (copies.length === 1) return [copies[0]!.route.cluster];
  const clusters = [...new Set(copies.map((c) => c.route.cluster))];
  return clusters.sort((a, b) => (clusterOrder.get(a) ?? 0) - (clusterOrder.get(b) ?? 0));
}

/** What a differing copy's parent entries say: which copy is served, and where this one differs. */
const conflictMessage = (served: Manifest, field: string) =>
  `this copy differs from the copy in cluster ${served.cluster} (older, served) at ${field}: that copy's spec is served, and this cluster's endpoints serve under it`;

/**
 * Compiles every HTTPRoute that names a Gateway of this edge; yields the accepted ones, one at a time, so what a
 * route's compile makes and its emit no longer needs is let go before the next route (a 100k-route config held
 * about 150 MB of it until the last route was done). Copies of one route in several clusters are one route
 * (namespace sameness, as the Multi-Cluster Services API resolves conflicts): identical copies merge; when copies
 * differ, the oldest copy's spec is served (creationTimestamp, then the edge's cluster order) and every cluster
 * holding a copy keeps serving under it, each differing copy told so. With `once`, each copy's spec is let go
 * once the route is done (CompileOptions.once).
 */
export function* compileHTTPRoutes(
  ctx: BackendContext,
  listeners: EdgeListener[],
  clusterOrder: Map<string, number>,
  report: CompileReport,
  othersRoutes: ReadonlySet<string>,
  once = false,
): Generator<RouteDraft> {
  // In the order of each route's first copy that attaches: the table's rules follow it.
  const attaches = (route: Manifest) => namesOwnParent(route, listeners);
  for (const copies of copiesOfEach(ctx.index.all("HTTPRoute"), attaches)) {
    const attached = attachCopies(copies, listeners, report, othersRoutes);
    const route = attached.length > 0 ? compileRoute(ctx, attached, clusterOrder, report) : null;
    if (route) yield route;
    // Nothing reads a route's spec once its copies are compiled and its rules are in the table.
    if (once) for (const copy of copies) letGoOfSpec(copy);
  }
}

/** One route from the copies of it that attached: its draft, or null when it is refused or attaches nowhere. */
function compileRoute(
  ctx: BackendContext,
  attached: AttachedCopy[],
  clusterOrder: Map<string, number>,
  report: CompileReport,
): RouteDraft | null {
  const group = sameObjectOf(
    attached.map((c) => c.route),
    clusterOrder,
  );
  const copyOf = (m: Manifest) => attached.find((c) => c.route === m)!;
  const route = group.served;
  const copies = group.merged.map(copyOf);
  const differing: DifferingCopy[] = group.differing.map((d) => ({ copy: copyOf(d.copy), field: d.field }));
  for (const d of differing) {
    report.warn(d.copy.route, d.field, REASON.Conflicted, conflictMessage(route, d.field));
    for (const m of missingBackendsOfCopy(ctx, d.copy.route))
      report.warn(
        d.copy.route,
        m.field,
        REASON.BackendNotFound,
        `${m.message}: this copy is not served now (the copy in cluster ${route.cluster} is); once it is, this cluster has nothing to send that backendRef's requests to`,
      );
  }
  const clusters = routeClusters([...copies, ...differing.map((d) => d.copy)], clusterOrder);
  for (const copy of [...copies, ...differing.map((d) => d.copy)]) report.noteParents(copy.route);
  const hostnames = routeHostnames(route);
  const rules = isProblem(hostnames) ? [hostnames] : compileRules(ctx, { route, clusters });
  // A rejected route: not accepted, each problem named (a differing copy is told it is the served copy's).
  if (Array.isArray(rules)) {
    for (const problem of rules) report.error(route, problem.field, problem.reason, `${problem.message}; the route is not served`);
    const first = rules[0]!;
    const refused = (copy: AttachedCopy, message: string) => {
      for (const o of copy.outcomes) report.addParent(copy.route, o.parentRef, [fails("Accepted", first.reason, message), resolved()]);
    };
    for (const copy of copies) refused(copy, first.message);
    for (const { copy } of differing) refused(copy, `the served copy (cluster ${route.cluster}): ${first.message}`);
    return null;
  }
  for (const d of rules.dropped) {
    report.error(route, d.field, d.reason, `${d.message}; this rule is dropped (${droppedEffect(d)}), the route's other rules are served`);
  }
  const partiallyInvalid =
    rules.dropped.length > 0 ? holds("PartiallyInvalid", REASON.UnsupportedValue, droppedRulesMessage(rules.dropped)) : null;
  const { unresolved } = rules.held;
  const resolvedRefs =
    unresolved.length === 0
      ? resolved()
      : fails("ResolvedRefs", unresolved[0]?.reason ?? REASON.BackendNotFound, unresolved.map((u) => u.message).join("; "));
  const aggregate = clusters.length > 1 ? { clusters, backends: mergedBackends(ctx, rules.rules) } : undefined;
  const servedCopy =
    differing.length > 0
      ? `the spec of the copy in cluster ${route.cluster} is served (the ${differing.length === 1 ? "copy" : "copies"} in ${routeClusters(
          differing.map((d) => d.copy),
          clusterOrder,
        ).join(", ")} ${differing.length === 1 ? "differs" : "differ"})`
      : "";
  const merged = aggregate
    ? [`one route across clusters ${clusters.join(", ")}`, servedCopy, ...aggregate.backends].filter(Boolean).join("; ")
    : "";
  const acceptedWith = (condition: Condition, message = merged) =>
    acceptedParent(
      message ? { ...condition, message } : condition,
      resolvedRefs,
      // PartiallyInvalid is only ever True, and only beside an accepted parent.
      partiallyInvalid ? [partiallyInvalid] : [],
    );
  const attachments = new Map<EdgeListener, Attachment>();
  const attach = (o: ParentOutcome) => {
    // Copies attached to one merged Gateway attach once.
    for (const a of o.attachments) if (!attachments.has(a.listener)) attachments.set(a.listener, a);
  };
  for (const copy of copies) {
    for (const o of copy.outcomes) {
      if (o.condition.status !== "True") report.refuseParent(copy.route, o.parentRef, o.condition, [resolvedRefs]);
      else report.addParent(copy.route, o.parentRef, acceptedWith(o.condition));
      attach(o);
    }
    if (aggregate) report.setAggregate(copy.route, aggregate);
  }
  // A differing copy serves through the parents it shares with the served copy; its own other parents, not.
  const servedParents = differing.length > 0 ? acceptedParents(copies) : NO_PARENTS;
  for (const { copy, field } of differing) {
    for (const o of copy.outcomes) {
      if (o.condition.status !== "True") report.refuseParent(copy.route, o.parentRef, o.condition, [resolvedRefs]);
      else if (!servedParents.has(parentKey(o.parentRef)))
        report.addParent(copy.route, o.parentRef, [
          fails(
            "Accepted",
            REASON.Conflicted,
            `the served copy (cluster ${route.cluster}) does not name this parent; this copy differs at ${field}`,
          ),
          resolved(),
        ]);
      else {
        report.addParent(copy.route, o.parentRef, [
          ...acceptedWith(o.condition),
          holds("Conflicted", REASON.Conflicted, conflictMessage(route, field)),
        ]);
        attach(o);
      }
    }
    if (aggregate) report.setAggregate(copy.route, aggregate);
  }
  if (attachments.size === 0) return null;
  rules.held.tellInto(report, route);
  for (const listener of attachments.keys()) report.attachRoute(listener.id);
  return { manifest: route, clusters, rules: rules.rules, attachments: [...attachments.values()] };
}
