/**
 * @module A served route's rules and matches, as the table holds them: one rule per route rule and listener
 * port it is attached through (redirects default to that port), each match with its place in the table,
 * ranked for the host index.
 */
import type { CompiledMatch, CompiledRule } from "../../table/route-table";
import type { IndexedAttachment } from "./host-index";
import type { Manifest } from "../../gateway-api/manifest";
import type { RouteDraft } from "../routes/http-routes";
import { kept, SharedLists } from "../kept";
import type { EdgeListener } from "../gateways/listener";

/**
 * A served route as the reports see it once its rules are in the table: the route, the clusters it stands for,
 * the listeners it attached through, and where its rules are in the table (its first port's copies: every port's
 * copies send to the same backends). Its draft is let go; its lists are shared with routes alike.
 */
export interface ServedRoute {
  manifest: Manifest;
  clusters: string[];
  listeners: EdgeListener[];
  /** Its rules are the table's `rules[firstRule]` and the `ruleCount - 1` after it. */
  firstRule: number;
  ruleCount: number;
}

/** The table's rules a served route made. */
export const rulesOf = (route: ServedRoute, rules: CompiledRule[]): CompiledRule[] =>
  rules.slice(route.firstRule, route.firstRule + route.ruleCount);

/** The lists served routes share (SharedLists): one compile's. */
export interface SharedRouteLists {
  clusters: SharedLists<string>;
  listeners: SharedLists<EdgeListener>;
  /** A listener's key in `listeners`: the object's own number (a Gateway's and a ListenerSet's may share an id). */
  listenerNumber(listener: EdgeListener): number;
  /** The hostnames a route has on a listener: the routes of one host have the same. */
  hostnames: SharedLists<string>;
}

export function sharedRouteLists(): SharedRouteLists {
  const numbers = new Map<EdgeListener, number>();
  return {
    clusters: new SharedLists(),
    listeners: new SharedLists(),
    listenerNumber(listener) {
      let n = numbers.get(listener);
      if (n === undefined) numbers.set(listener, (n = numbers.size));
      return n;
    },
    hostnames: new SharedLists(),
  };
}

/** What emitting a route gives: the route as served, and its attachments with their ranked matches. */
export interface EmittedRoute {
  served: ServedRoute;
  attachments: IndexedAttachment[];
}

/** Appends the route's rules and matches to the table's lists. */
export function emitRoute(
  draft: RouteDraft,
  clusterOrder: number,
  rules: CompiledRule[],
  matches: CompiledMatch[],
  shared: SharedRouteLists,
): EmittedRoute {
  const { manifest: route } = draft;
  // The route's metadata is its identity (one object per route, with the fields precedence reads): not one more
  // object per route.
  const identity = route.metadata;
  const clusters = draft.clusters.join(",");
  // Ids are joined, not templated: a template keeps its pieces (a tree of 4-5 strings per id, 27 MB at 100k routes).
  const base = [clusters, route.metadata.namespace, route.metadata.name].join("/");
  const ports = [...new Set(draft.attachments.map((a) => a.listener.port))].sort((a, b) => a - b);
  // The table's objects are built with their fields in sorted order: canonicalJson then writes them without a copy.
  const source = { cluster: clusters, kind: "HTTPRoute", name: route.metadata.name, namespace: route.metadata.namespace };
  const result: IndexedAttachment[] = [];
  const first = rules.length;
  for (const port of ports) {
    // A route attached to listeners on several ports gets one copy per port: redirects default to that port.
    const suffix = ports.length > 1 ? `@${port}` : "";
    const ranked: IndexedAttachment["matches"] = [];
    // A rule copy serves every listener of its port: one that validates client certificates makes it require one.
    const certificate = draft.attachments.some((a) => a.listener.port === port && a.listener.clientCertificate === "required");
    for (const rule of draft.rules) {
      const ruleIndex = rules.length;
      const id = [base, "rule", `${rule.index}${suffix}`].join("/");
      // Every field named, the absent ones undefined (the table's JSON leaves them out): one shape for every rule,
      // where spreading each optional field in made a throwaway object per field and rule.
      rules.push({
        backendRefs: rule.backendRefs,
        clientCertificate: certificate ? "required" : undefined,
        filters: rule.filters,
        id,
        invalid: rule.invalid,
        listenerPort: port,
        retry: rule.retry,
        session: rule.session,
        source,
        timeouts: rule.timeouts,
      });
      rule.matches.forEach((m, j) => {
        // Named fields, not a spread: the spread's fields land outside the object, in a second allocation.
        const match: CompiledMatch = {
          headers: m.headers,
          id: [id, "match", j].join("/"),
          method: m.method,
          path: m.path,
          queryParams: m.queryParams,
          rule: ruleIndex,
        };
        ranked.push({ index: matches.length, match, route: identity, clusterOrder, ruleIndex: rule.index, matchIndex: j });
        matches.push(match);
      });
    }
    const portMatches = kept(ranked);
    // Named fields, not a spread: V8 gives each spread copy a hidden class of its own (20 MB at 100k routes).
    for (const { listener, hostnames } of draft.attachments)
      if (listener.port === port)
        result.push({ listener, hostnames: hostnames && shared.hostnames.of(hostnames.join("\n"), hostnames), matches: portMatches });
  }
  const listeners = [...new Set(draft.attachments.map((a) => a.listener))];
  return {
    served: {
      manifest: route,
      clusters: shared.clusters.of(clusters, draft.clusters),
      listeners: shared.listeners.of(listeners.map((l) => shared.listenerNumber(l)).join(","), listeners),
      firstRule: first,
      ruleCount: draft.rules.length,
    },
    attachments: result,
  };
}
