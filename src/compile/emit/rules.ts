/**
 * @module A served route's rules and matches, as the table holds them: one rule per route rule and listener
 * port it is attached through (redirects default to that port), each match with its place in the table,
 * ranked for the host index.
 */
import type { CompiledMatch, CompiledRule } from "../../table/route-table";
import type { IndexedAttachment } from "./host-index";
import type { RouteDraft } from "../routes/http-routes";

/** Appends the route's rules and matches to the table's lists; returns its attachments with their ranked matches. */
export function emitRoute(draft: RouteDraft, clusterOrder: number, rules: CompiledRule[], matches: CompiledMatch[]): IndexedAttachment[] {
  const { manifest: route } = draft;
  // One identity per route: precedence tells two routes apart by it.
  const identity = { namespace: route.metadata.namespace, name: route.metadata.name, creationTimestamp: route.metadata.creationTimestamp };
  const clusters = draft.clusters.join(",");
  const base = `${clusters}/${route.metadata.namespace}/${route.metadata.name}`;
  const ports = [...new Set(draft.attachments.map((a) => a.listener.port))].sort((a, b) => a - b);
  const result: IndexedAttachment[] = [];
  for (const port of ports) {
    // A route attached to listeners on several ports gets one copy per port: redirects default to that port.
    const suffix = ports.length > 1 ? `@${port}` : "";
    const ranked: IndexedAttachment["matches"] = [];
    // A rule copy serves every listener of its port: one that validates client certificates makes it require one.
    const certificate = draft.attachments.some((a) => a.listener.port === port && a.listener.clientCertificate === "required");
    for (const rule of draft.rules) {
      const ruleIndex = rules.length;
      const id = `${base}/rule/${rule.index}${suffix}`;
      rules.push({
        id,
        source: { cluster: clusters, kind: "HTTPRoute", namespace: route.metadata.namespace, name: route.metadata.name },
        listenerPort: port,
        ...(certificate ? { clientCertificate: "required" as const } : {}),
        backendRefs: rule.backendRefs,
        filters: rule.filters,
        timeouts: rule.timeouts,
        ...(rule.retry ? { retry: rule.retry } : {}),
        ...(rule.session ? { session: rule.session } : {}),
        ...(rule.invalid ? { invalid: rule.invalid } : {}),
      });
      rule.matches.forEach((m, j) => {
        const match: CompiledMatch = { id: `${id}/match/${j}`, rule: ruleIndex, ...m };
        ranked.push({ index: matches.length, match, route: identity, clusterOrder, ruleIndex: rule.index, matchIndex: j });
        matches.push(match);
      });
    }
    for (const a of draft.attachments) if (a.listener.port === port) result.push({ ...a, matches: ranked });
  }
  return result;
}
