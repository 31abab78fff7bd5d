/**
 * @module The guard against a push that would take most of the edge away: a table that drops more than
 * half of the served rules or of the served hosts (all of them, certainly) is refused unless `--force`.
 * One cluster's broken folder or a mistyped parentRef otherwise turns a working edge into 404s.
 */
import type { RouteTable } from "../../src/table/route-table";
import { count } from "../report/report";
import type { ServedTable } from "../store/served-table";
import { type Tally, TableTally } from "./table-tally";

/** The share of the served rules or hosts a push may remove without --force. */
export const MAX_DROP_SHARE = 0.5;

function dropVerdict({ rules, hosts }: Tally): string | null {
  const tooMany = (gone: number, of: number) => of > 0 && (gone === of || gone / of > MAX_DROP_SHARE);
  const rulesGone = rules.now - rules.kept;
  const hostsGone = hosts.now - hosts.kept;
  if (!tooMany(rulesGone, rules.now) && !tooMany(hostsGone, hosts.now)) return null;
  return `this push would remove ${rulesGone} of ${count(rules.now, "served rule")} and ${hostsGone} of ${count(hosts.now, "served host")} (more than ${MAX_DROP_SHARE * 100}% is refused); nothing written`;
}

/** Why pushing `next` over `current` is refused without --force, or null. */
export function largeDrop(current: RouteTable, next: RouteTable): string | null {
  return dropVerdict(new TableTally(next).see(current).counts());
}

/** The same for the served table as a sync read it: whole, or its outline (the counts are the same). */
export function largeDropFrom(served: ServedTable, next: RouteTable): string | null {
  if (!served || served.version === next.version) return null;
  return "table" in served ? largeDrop(served.table, next) : dropVerdict(served.outline);
}
