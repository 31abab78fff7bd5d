/**
 * @module The guard against a push that would take most of the edge away: a table that drops more than
 * half of the served rules or of the served hosts (all of them, certainly) is refused unless `--force`.
 * One cluster's broken folder or a mistyped parentRef otherwise turns a working edge into 404s.
 */
import type { RouteTable } from "../../src/table/route-table";
import { servedHosts } from "../report/diff-tables";
import { count } from "../report/report";
import type { ServedTable } from "../store/served-table";
import { ruleKey } from "./rule-key";

/** The share of the served rules or hosts a push may remove without --force. */
export const MAX_DROP_SHARE = 0.5;

/** How many rules and hosts are served, and how many of them the new table keeps. */
interface Kept {
  rules: { now: number; kept: number };
  hosts: { now: number; kept: number };
}

function keptOf(current: RouteTable, next: RouteTable): Kept {
  const rulesNow = new Set(current.rules.map((r) => ruleKey(r.id)));
  const rulesNext = new Set(next.rules.map((r) => ruleKey(r.id)));
  const hostsNow = servedHosts(current);
  const hostsNext = servedHosts(next);
  return {
    rules: { now: rulesNow.size, kept: [...rulesNow].filter((r) => rulesNext.has(r)).length },
    hosts: { now: hostsNow.size, kept: [...hostsNow].filter((h) => hostsNext.has(h)).length },
  };
}

function dropVerdict({ rules, hosts }: Kept): string | null {
  const tooMany = (gone: number, of: number) => of > 0 && (gone === of || gone / of > MAX_DROP_SHARE);
  const rulesGone = rules.now - rules.kept;
  const hostsGone = hosts.now - hosts.kept;
  if (!tooMany(rulesGone, rules.now) && !tooMany(hostsGone, hosts.now)) return null;
  return `this push would remove ${rulesGone} of ${count(rules.now, "served rule")} and ${hostsGone} of ${count(hosts.now, "served host")} (more than ${MAX_DROP_SHARE * 100}% is refused); nothing written`;
}

/** Why pushing `next` over `current` is refused without --force, or null. */
export function largeDrop(current: RouteTable, next: RouteTable): string | null {
  return dropVerdict(keptOf(current, next));
}

/** The same for the served table as a sync read it: whole, or its outline (the counts are the same). */
export function largeDropFrom(served: ServedTable, next: RouteTable): string | null {
  if (!served || served.version === next.version) return null;
  return "table" in served ? largeDrop(served.table, next) : dropVerdict(served.outline);
}
