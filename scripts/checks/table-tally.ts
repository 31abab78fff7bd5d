/**
 * @module What a new table keeps, drops and adds of the served one, by rule and host: counted as the served table's
 * pieces come (the whole table, or its shards a batch at a time), so the large-drop check and a history summary
 * can be made without the whole served table in memory.
 */
import type { RouteTable } from "../../src/table/route-table";
import { servedHosts } from "../report/diff-tables";
import { NAMED_LIMIT } from "../report/change-summary";

/** A rule's id without the clusters it came from: a cluster joining renames every id, not the rule. */
export const ruleKey = (id: string): string => id.slice(id.indexOf("/") + 1);

/** One kind of id (rule keys, hosts) in the served table and in the new one. */
export interface IdCount {
  /** How many the served table has. */
  now: number;
  /** How many of those the new table keeps. */
  kept: number;
  /** How many the new table adds. */
  added: number;
  /** The first removed and added, as many as a summary names (NAMED_LIMIT). */
  someRemoved: string[];
  someAdded: string[];
}

/** Counts one kind of id as the served table's pieces come, against the new table's. */
class IdTally {
  private readonly next = new Map<string, boolean>();
  private readonly removed = new Set<string>();
  private kept = 0;

  constructor(ids: Iterable<string>) {
    for (const id of ids) this.next.set(id, false);
  }

  see(id: string): void {
    const seen = this.next.get(id);
    if (seen === undefined) this.removed.add(id);
    else if (!seen) {
      this.next.set(id, true);
      this.kept++;
    }
  }

  count(): IdCount {
    const someAdded: string[] = [];
    for (const [id, seen] of this.next) if (!seen && someAdded.push(id) >= NAMED_LIMIT) break;
    return {
      now: this.kept + this.removed.size,
      kept: this.kept,
      added: this.next.size - this.kept,
      someRemoved: [...this.removed].slice(0, NAMED_LIMIT),
      someAdded,
    };
  }
}

/** The rules and hosts of the served table, against the new table's. */
export interface Tally {
  rules: IdCount;
  hosts: IdCount;
}

/** The served table's rules and hosts against the new table's, counted from its pieces as they are seen. */
export class TableTally {
  private readonly rules: IdTally;
  private readonly hosts: IdTally;

  constructor(next: RouteTable) {
    this.rules = new IdTally(next.rules.map((r) => ruleKey(r.id)));
    this.hosts = new IdTally(servedHosts(next));
  }

  /** A piece of the served table: the whole of it, or one shard (a rule in several shards counts once). */
  see(piece: RouteTable): this {
    for (const rule of piece.rules) this.rules.see(ruleKey(rule.id));
    for (const host of servedHosts(piece)) this.hosts.see(host);
    return this;
  }

  counts(): Tally {
    return { rules: this.rules.count(), hosts: this.hosts.count() };
  }
}
