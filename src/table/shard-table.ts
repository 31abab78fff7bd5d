/**
 * @module How a compiled table is stored: one KV value while it is small, else shards by host. Each shard
 * is a complete RouteTable of its hosts (their matches, rules, backends, and every listener), so the Worker
 * runs the same matcher on a shard as on a whole table; the root's directory says which shard holds each
 * host key. Hosts are packed in name order until a shard reaches the shard size, so equal configs give
 * equal shards. `joinShards` puts them back together (for --dry-run's diff against a sharded table).
 */
import { canonicalJson, canonicalJsonByParts } from "./canonical-json";
import { utf8Length } from "./utf8-length";
import { DEFAULT_SHARD_BYTES, KV_VALUE_LIMIT_BYTES } from "./kv-keys";
import {
  type CompiledRule,
  type HostIndex,
  type Protocol,
  type RouteTable,
  type ShardDirectory,
  type ShardedTable,
  type StoredTable,
} from "./route-table";

export interface StoredText<T> {
  value: T;
  /** Canonical JSON, exactly what KV holds. */
  text: string;
}

/**
 * One shard of a plan. Its text is made when asked for, on each call: a push makes each text as it writes it, so
 * a 100k-route table's 36 MB of shard texts are never all held at once.
 */
export interface PlannedShard {
  /** The shard as a table (built again on each call). */
  value(): RouteTable;
  /** Canonical JSON, exactly what KV holds. */
  text(): string;
}

export interface StoragePlan {
  /** The whole table this plan stores. */
  table: RouteTable;
  /**
   * What `table/<name>/<version>` holds: the whole table, or the root of a sharded one. A root records its shards'
   * sizes: read first, it makes the text of every shard not made yet.
   */
  readonly root: StoredText<StoredTable>;
  /** Shard i goes to `table/<name>/<version>/shard/<i>`; empty when the table is one value. */
  shards: PlannedShard[];
}

export type PlanResult = { ok: true; plan: StoragePlan } | { ok: false; problem: string };

export interface ShardLimits {
  /** Tables above this are sharded; shards are packed up to it. */
  shardBytes?: number;
  /** No stored value may exceed this (Workers KV's value limit). */
  valueLimitBytes?: number;
}

type KeyKind = "exact" | "wildcard" | "any";

/** One host key (an exact host, a wildcard suffix, or the catch-all) with its candidates per protocol. */
interface HostUnit {
  kind: KeyKind;
  name: string;
  lists: Partial<Record<Protocol, number[]>>;
}

const mib = (n: number): string => (n < 2 ** 20 ? `${(n / 1024).toFixed(1)} KiB` : `${(n / 2 ** 20).toFixed(1)} MiB`);
const KIND_ORDER: Record<KeyKind, number> = { exact: 0, wildcard: 1, any: 2 };

function hostUnits(table: RouteTable): HostUnit[] {
  const units = new Map<string, HostUnit>();
  const add = (kind: KeyKind, name: string, protocol: Protocol, list: number[]) => {
    const key = `${kind}:${name}`;
    let unit = units.get(key);
    if (!unit) units.set(key, (unit = { kind, name, lists: {} }));
    unit.lists[protocol] = list;
  };
  for (const [protocol, index] of Object.entries(table.hosts) as [Protocol, HostIndex][]) {
    for (const [host, list] of Object.entries(index.exact)) add("exact", host, protocol, list);
    for (const [suffix, list] of Object.entries(index.wildcard)) add("wildcard", suffix, protocol, list);
    if (index.any.length > 0) add("any", "", protocol, index.any);
  }
  return [...units.values()].sort((a, b) => KIND_ORDER[a.kind] - KIND_ORDER[b.kind] || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

const describeUnit = (unit: HostUnit): string =>
  unit.kind === "exact" ? `host ${unit.name}` : unit.kind === "wildcard" ? `hosts *.${unit.name}` : "the catch-all (no hostname) routes";

/** Backends a rule sends to: its backendRefs and every RequestMirror target. */
function backendsOfRule(rule: CompiledRule): string[] {
  const ids: string[] = [];
  for (const filter of rule.filters) if (filter.type === "RequestMirror") ids.push(filter.backend);
  for (const ref of rule.backendRefs) {
    if (ref.backend) ids.push(ref.backend);
    for (const filter of ref.filters) if (filter.type === "RequestMirror") ids.push(filter.backend);
  }
  return ids;
}

/** A host unit with the parts it brings to a shard that lacks them. */
interface Addition {
  unit: HostUnit;
  bytes: number;
  matches: Set<number>;
  rules: Set<number>;
  backends: Set<string>;
}

/** The parts of a table one shard holds, with their JSON sizes, for packing. */
class ShardBuilder {
  readonly units: HostUnit[] = [];
  readonly matches = new Set<number>();
  readonly rules = new Set<number>();
  readonly backends = new Set<string>();
  bytes = 0;

  constructor(private readonly sizes: PartSizes) {}

  /** What this unit would add: the parts the shard does not hold yet, and their bytes. */
  measure(unit: HostUnit): Addition {
    const add: Addition = { unit, bytes: unit.name.length + 16, matches: new Set(), rules: new Set(), backends: new Set() };
    const { table } = this.sizes;
    for (const list of Object.values(unit.lists)) {
      add.bytes += list.length * 6;
      for (const m of list) {
        if (this.matches.has(m) || add.matches.has(m)) continue;
        add.matches.add(m);
        add.bytes += this.sizes.match(m);
        const r = table.matches[m]!.rule;
        if (this.rules.has(r) || add.rules.has(r)) continue;
        add.rules.add(r);
        add.bytes += this.sizes.rule(r);
        for (const b of backendsOfRule(table.rules[r]!)) {
          if (this.backends.has(b) || add.backends.has(b)) continue;
          add.backends.add(b);
          add.bytes += this.sizes.backend(b);
        }
      }
    }
    return add;
  }

  add(addition: Addition): void {
    this.units.push(addition.unit);
    this.bytes += addition.bytes;
    for (const m of addition.matches) this.matches.add(m);
    for (const r of addition.rules) this.rules.add(r);
    for (const b of addition.backends) this.backends.add(b);
  }

  /**
   * At most how many UTF-8 bytes this shard's text takes beside the table's other fields (`base`): its characters
   * counted high (host names as if each character were escaped, every match index as long as the largest), each
   * at most 3 bytes. A match's rule index in a shard is no longer than in the table: a shard keeps its rules in the
   * table's order.
   */
  mostBytes(base: number): number {
    const indexLength = String(this.matches.size).length + 1;
    let chars = 2 * 64; // a protocol's "HTTPS":{"any":[],"exact":{},"wildcard":{}}, for each of two
    for (const unit of this.units)
      for (const list of Object.values(unit.lists)) chars += 6 * unit.name.length + 8 + list.length * indexLength;
    for (const m of this.matches) chars += this.sizes.match(m);
    for (const r of this.rules) chars += this.sizes.rule(r);
    for (const b of this.backends) chars += 6 * b.length + 3 + this.sizes.backend(b);
    return base + 3 * chars;
  }

  /** The shard's text: its table's canonical JSON. */
  text(): string {
    return canonicalJsonByParts(this.build());
  }

  build(): RouteTable {
    const { table } = this.sizes;
    const ascending = (s: Set<number>) => [...s].sort((a, b) => a - b);
    const matchOrder = ascending(this.matches);
    const ruleOrder = ascending(this.rules);
    const newMatch = new Map(matchOrder.map((m, i) => [m, i]));
    const newRule = new Map(ruleOrder.map((r, i) => [r, i]));
    const hosts: Partial<Record<Protocol, HostIndex>> = {};
    for (const unit of this.units) {
      for (const [protocol, list] of Object.entries(unit.lists) as [Protocol, number[]][]) {
        const index = (hosts[protocol] ??= { exact: {}, wildcard: {}, any: [] });
        const mapped = list.map((m) => newMatch.get(m)!);
        if (unit.kind === "any") index.any = mapped;
        else index[unit.kind][unit.name] = mapped;
      }
    }
    return {
      ...table,
      hosts,
      matches: matchOrder.map((m) => ({ ...table.matches[m]!, rule: newRule.get(table.matches[m]!.rule)! })),
      rules: ruleOrder.map((r) => table.rules[r]!),
      backends: Object.fromEntries([...this.backends].sort().map((id) => [id, table.backends[id]!])),
    };
  }
}

/**
 * The JSON length (in UTF-16 code units) of each match and rule of a table, by index; 0 where not known yet (no
 * part's JSON is empty). An array of numbers, not a map entry per match and rule.
 */
export interface PartLengths {
  matches: Int32Array;
  rules: Int32Array;
}

/** JSON sizes of a table's parts (each with the comma after it), measured once each unless known already. */
class PartSizes {
  private readonly lengths: PartLengths;
  private readonly backends = new Map<string, number>();

  constructor(
    readonly table: RouteTable,
    known?: PartLengths,
  ) {
    this.lengths = known ?? { matches: new Int32Array(table.matches.length), rules: new Int32Array(table.rules.length) };
  }

  private static size = (value: unknown) => JSON.stringify(value).length;

  match = (i: number) => (this.lengths.matches[i] ||= PartSizes.size(this.table.matches[i])) + 1;
  rule = (i: number) => (this.lengths.rules[i] ||= PartSizes.size(this.table.rules[i])) + 1;
  backend = (id: string) => {
    let size = this.backends.get(id);
    if (size === undefined) this.backends.set(id, (size = PartSizes.size(this.table.backends[id]) + 1));
    return size;
  };
}

/**
 * What is known of a table's canonical JSON without making it: its UTF-8 bytes, and the lengths of its parts. The
 * compiler knows both from writing the text for the table's version; shards are packed by the lengths.
 */
export interface TextFacts {
  readonly bytes: number;
  readonly partLengths?: PartLengths;
}

/** The facts of a table's text, for a caller that has none: the text is made once to measure it. */
const factsOf = (table: RouteTable): TextFacts => ({ bytes: utf8Length(canonicalJsonByParts(table)) });

/**
 * One value while the table fits the shard size; else shards of at most about that size each. `facts` are what the
 * compiler knows of the table's text: a table stored in shards is never written whole.
 */
export function planStorage(table: RouteTable, limits: ShardLimits = {}, facts: TextFacts = factsOf(table)): PlanResult {
  const shardBytes = limits.shardBytes ?? DEFAULT_SHARD_BYTES;
  const valueLimit = limits.valueLimitBytes ?? KV_VALUE_LIMIT_BYTES;
  const wholeBytes = facts.bytes;
  if (wholeBytes <= shardBytes) return { ok: true, plan: { table, root: { value: table, text: canonicalJsonByParts(table) }, shards: [] } };

  const sizes = new PartSizes(table, facts.partLengths);
  const base = utf8Length(canonicalJson({ ...table, hosts: {}, matches: [], rules: [], backends: {} }));
  const builders: ShardBuilder[] = [];
  let current = new ShardBuilder(sizes);
  for (const unit of hostUnits(table)) {
    let addition = current.measure(unit);
    if (current.units.length > 0 && base + current.bytes + addition.bytes > shardBytes) {
      builders.push(current);
      current = new ShardBuilder(sizes);
      addition = current.measure(unit);
    }
    current.add(addition);
  }
  if (current.units.length > 0) builders.push(current);

  // Each shard is checked against KV's value limit before anything is written, but its text is made only when it
  // is written: a shard that surely fits is not made here; one that might not is made now to be measured.
  for (const builder of builders) {
    if (builder.mostBytes(base) <= valueLimit) continue;
    const bytes = utf8Length(builder.text());
    if (bytes > valueLimit) {
      const what = builder.units.length === 1 ? `${describeUnit(builder.units[0]!)} alone needs` : "one shard needs";
      return {
        ok: false,
        problem: `table ${table.name} is ${mib(wholeBytes)}; ${what} ${mib(bytes)} (${builder.rules.size} rules, ${builder.backends.size} backends), and a Workers KV value holds at most ${mib(valueLimit)}`,
      };
    }
  }

  const directory: Partial<Record<Protocol, ShardDirectory>> = {};
  builders.forEach((builder, shard) => {
    for (const unit of builder.units) {
      for (const protocol of Object.keys(unit.lists) as Protocol[]) {
        const entry = (directory[protocol] ??= { exact: {}, wildcard: {} });
        if (unit.kind === "any") entry.any = shard;
        else entry[unit.kind][unit.name] = shard;
      }
    }
  });
  const rootWith = (bytes: (shard: number) => number): ShardedTable => ({
    schemaVersion: table.schemaVersion,
    sharded: true,
    version: table.version,
    name: table.name,
    directory,
    shards: builders.map((builder, i) => ({ hosts: builder.units.length, rules: builder.rules.size, bytes: bytes(i) })),
    ...(table.healthChecks ? { healthChecks: table.healthChecks } : {}),
  });
  // The root as large as it can be: every shard's size written with as many digits as the limit has.
  const largestRoot = utf8Length(canonicalJson(rootWith(() => valueLimit)));
  if (largestRoot > valueLimit) {
    return {
      ok: false,
      problem: `table ${table.name} has so many hosts that its shard directory alone is ${mib(largestRoot)}; a Workers KV value holds at most ${mib(valueLimit)}`,
    };
  }

  // Each shard's size, recorded as its text is made: the root writes them down.
  const textBytes: number[] = [];
  const shards: PlannedShard[] = builders.map((builder, i) => ({
    value: () => builder.build(),
    text() {
      const text = builder.text();
      textBytes[i] = utf8Length(text);
      // The plan's bound said it fits: were that ever wrong, the push stops here, before this shard is written.
      if (textBytes[i] > valueLimit)
        throw new Error(`kedge bug: shard ${i} of table ${table.name} is ${textBytes[i]} bytes, over the ${valueLimit} its plan allowed`);
      return text;
    },
  }));
  let root: StoredText<StoredTable> | undefined;
  return {
    ok: true,
    plan: {
      table,
      shards,
      get root() {
        if (root) return root;
        // A shard whose text was not made yet (the root read before the push) is made to be measured.
        for (const [i, shard] of shards.entries()) if (textBytes[i] === undefined) shard.text();
        const value = rootWith((i) => textBytes[i]!);
        return (root = { value, text: canonicalJson(value) });
      },
    },
  };
}

/** The whole table again from a sharded root and its shards (parts shared by shards appear once). */
export function joinShards(root: ShardedTable, shards: RouteTable[]): RouteTable {
  const first = shards[0];
  const joined: RouteTable = {
    schemaVersion: root.schemaVersion,
    version: root.version,
    name: root.name,
    listeners: first?.listeners ?? [],
    hosts: {},
    matches: [],
    rules: [],
    backends: {},
    ...(first?.locality ? { locality: first.locality } : {}),
    ...(first?.clusters ? { clusters: first.clusters } : {}),
    ...(first?.failover ? { failover: first.failover } : {}),
    ...(first?.egress ? { egress: first.egress } : {}),
    ...(root.healthChecks ? { healthChecks: root.healthChecks } : {}),
  };
  const ruleAt = new Map<string, number>();
  const matchAt = new Map<string, number>();
  for (const shard of shards) {
    Object.assign(joined.backends, shard.backends);
    const localMatch = shard.matches.map((m) => {
      let at = matchAt.get(m.id);
      if (at === undefined) {
        const ruleId = shard.rules[m.rule]!.id;
        let rule = ruleAt.get(ruleId);
        if (rule === undefined) ruleAt.set(ruleId, (rule = joined.rules.push(shard.rules[m.rule]!) - 1));
        matchAt.set(m.id, (at = joined.matches.push({ ...m, rule }) - 1));
      }
      return at;
    });
    for (const [protocol, index] of Object.entries(shard.hosts) as [Protocol, HostIndex][]) {
      const into = (joined.hosts[protocol] ??= { exact: {}, wildcard: {}, any: [] });
      const mapped = (list: number[]) => list.map((m) => localMatch[m]!);
      for (const [host, list] of Object.entries(index.exact)) into.exact[host] = mapped(list);
      for (const [suffix, list] of Object.entries(index.wildcard)) into.wildcard[suffix] = mapped(list);
      if (index.any.length > 0) into.any = mapped(index.any);
    }
  }
  return joined;
}
