/**
 * @module One line saying what a version changed from the one served before it, as each history entry keeps it
 * ("cluster eu Draining; backend Service/shop/web:80 +2 endpoints", "host api.example.com added"): the
 * operations first (cluster state, priority, weights), then hosts, rules, backends and settings, counted when
 * there are many. Built from the same diff `kedge diff` prints in full.
 */
import type { RouteTable } from "../../src/table/route-table";
import { count } from "./report";
import type { TableDiff } from "./diff-tables";
import { endpointCounts } from "./diff-endpoints";
import type { ServedOutline } from "../store/served-table";

/** Parts of a summary before the rest is counted ("(+3 more)"). */
const PARTS_LIMIT = 6;
/** Ids named one by one up to this many; more are counted ("4 hosts added"). */
export const NAMED_LIMIT = 2;

/** "host a added", "host a added; host b added", or "3 hosts added". */
function named(what: string, ids: string[], verb: string): string[] {
  if (ids.length === 0) return [];
  return ids.length <= NAMED_LIMIT ? ids.map((id) => `${what} ${id} ${verb}`) : [`${count(ids.length, what)} ${verb}`];
}

function clusterParts(diff: TableDiff): string[] {
  return diff.clusters.flatMap((c) => [
    ...(c.state ? [`cluster ${c.cluster} ${c.state.to}`] : []),
    ...(c.priority ? [`cluster ${c.cluster} priority ${c.priority.to}`] : []),
    ...(c.staleSince ? [c.staleSince.to ? `cluster ${c.cluster} API unreachable` : `cluster ${c.cluster} answers again`] : []),
  ]);
}

function ruleParts(diff: TableDiff, next: RouteTable, current: RouteTable): string[] {
  const parts = [...named("rule", diff.rules.added, "added"), ...named("rule", diff.rules.removed, "removed")];
  const weighted = diff.rules.changed.filter((id) => diff.weights[id]);
  const rule = (table: RouteTable, id: string) => table.rules.find((r) => r.id === id);
  for (const id of weighted.slice(0, NAMED_LIMIT)) {
    const ratio = (table: RouteTable) => (rule(table, id)?.backendRefs ?? []).map((ref) => ref.weight).join("/");
    parts.push(`rule ${id} weights ${ratio(current)} → ${ratio(next)}`);
  }
  if (weighted.length > NAMED_LIMIT) parts.push(`${count(weighted.length - NAMED_LIMIT, "more rule")} reweighted`);
  // A rule whose only change is its weights is said above.
  const other = diff.rules.changed.filter((id) => (diff.rules.fields[id] ?? []).length > (diff.weights[id]?.length ?? 0));
  parts.push(...named("rule", other, "changed"));
  return parts;
}

function backendParts(diff: TableDiff, next: RouteTable): string[] {
  const name = (id: string) => next.backends[id]?.target ?? id;
  const parts = [...named("backend", diff.backends.added, "added"), ...named("backend", diff.backends.removed, "removed")];
  const withEndpoints = diff.backends.changed.filter((id) => diff.endpoints[id]);
  for (const id of withEndpoints.slice(0, NAMED_LIMIT)) {
    const counted = endpointCounts(diff.endpoints[id]!);
    parts.push(`backend ${name(id)} ${counted.length > 0 ? counted.join(", ") : "endpoints changed"}`);
  }
  if (withEndpoints.length > NAMED_LIMIT) parts.push(`endpoints of ${count(withEndpoints.length - NAMED_LIMIT, "more backend")} changed`);
  const other = diff.backends.changed.filter((id) => (diff.backends.fields[id] ?? []).length > 0 && !diff.endpoints[id]);
  parts.push(...named("backend", other, "changed"));
  return parts;
}

/** The summary of a table's first version: there is nothing to compare it with. */
export const firstVersionSummary = (table: RouteTable): string =>
  `first version: ${count(table.rules.length, "rule")}, ${count(Object.keys(table.backends).length, "backend")}`;

/** What `next` changes from `current` (the version served before it), in one line. */
export function changeSummary(diff: TableDiff, current: RouteTable | null, next: RouteTable): string {
  if (!current) return firstVersionSummary(next);
  if (diff.from === diff.to) return "no change";
  const parts = [
    ...clusterParts(diff),
    ...named("host", diff.hosts.added, "added"),
    ...named("host", diff.hosts.removed, "removed"),
    ...ruleParts(diff, next, current),
    ...backendParts(diff, next),
    ...(diff.settings.length > 0 ? [`${diff.settings.join(", ")} changed`] : []),
  ];
  if (parts.length === 0) parts.push(diff.hostsChanged ? "the order of a host's candidate rules changed" : "the table changed");
  return parts.length > PARTS_LIMIT ? `${parts.slice(0, PARTS_LIMIT).join("; ")} (+${parts.length - PARTS_LIMIT} more)` : parts.join("; ");
}

/**
 * What `next` changes from a served table known by its outline (one too big to diff beside it): the hosts and rules
 * added and removed, by id; changes within a rule or backend are not told apart from none.
 */
export function outlineSummary(outline: ServedOutline, next: RouteTable): string {
  const { hosts, rules } = outline;
  // An outline keeps the first ids of each, enough to name them when they are few.
  const told = (what: string, ids: string[], n: number, verb: string) =>
    n > NAMED_LIMIT ? [`${count(n, what)} ${verb}`] : named(what, ids, verb);
  const parts = [
    ...told("host", hosts.someAdded, hosts.added, "added"),
    ...told("host", hosts.someRemoved, hosts.now - hosts.kept, "removed"),
    ...told("rule", rules.someAdded, rules.added, "added"),
    ...told("rule", rules.someRemoved, rules.now - rules.kept, "removed"),
  ];
  const whole = `counted by host and rule id only: the served table, ${count(rules.now, "rule")}, was too big to diff beside ${count(next.rules.length, "new rule")} during the sync`;
  return parts.length === 0 ? `the table changed (${whole})` : `${parts.join("; ")} (${whole})`;
}
