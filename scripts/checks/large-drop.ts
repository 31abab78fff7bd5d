/**
 * @module The guard against a push that would take most of the edge away: a table that drops more than
 * half of the served rules or of the served hosts (all of them, certainly) is refused unless `--force`.
 * One cluster's broken folder or a mistyped parentRef otherwise turns a working edge into 404s.
 */
import type { RouteTable } from "../../src/table/route-table";
import { servedHosts } from "../report/diff-tables";
import { count } from "../report/report";

/** The share of the served rules or hosts a push may remove without --force. */
export const MAX_DROP_SHARE = 0.5;

/** A rule as the edge knows it across syncs: its id without the clusters it came from (a cluster joining renames them all). */
const ruleKey = (id: string) => id.slice(id.indexOf("/") + 1);

/** Why pushing `next` over `current` is refused without --force, or null. */
export function largeDrop(current: RouteTable, next: RouteTable): string | null {
  const rulesNow = new Set(current.rules.map((r) => ruleKey(r.id)));
  const rulesNext = new Set(next.rules.map((r) => ruleKey(r.id)));
  const rulesKept = [...rulesNow].filter((r) => rulesNext.has(r)).length;
  const hostsNow = servedHosts(current);
  const hostsNext = servedHosts(next);
  const hostsKept = [...hostsNow].filter((h) => hostsNext.has(h)).length;
  const rulesGone = rulesNow.size - rulesKept;
  const hostsGone = hostsNow.size - hostsKept;
  const tooMany = (gone: number, of: number) => of > 0 && (gone === of || gone / of > MAX_DROP_SHARE);
  if (!tooMany(rulesGone, rulesNow.size) && !tooMany(hostsGone, hostsNow.size)) return null;
  return `this push would remove ${rulesGone} of ${count(rulesNow.size, "served rule")} and ${hostsGone} of ${count(hostsNow.size, "served host")} (more than ${MAX_DROP_SHARE * 100}% is refused); nothing written`;
}
