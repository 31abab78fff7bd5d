/**
 * @module What a new table changes compared with the served one (`kedge diff`, `sync --dry-run`, `rollback --dry-run`,
 * a refused large drop, the summary each history entry keeps): the clusters' state and priority, the hosts it
 * starts or stops answering, the rules and backends added, removed or changed, and inside them, in words, the
 * backendRef weights and the endpoints added, removed, turned ready or not, or reweighted.
 */
import { canonicalJson } from "../../src/table/canonical-json";
import type { CompiledMatch, CompiledRule, RouteTable } from "../../src/table/route-table";
import { type ClusterChange, clusterChanges, clusterChangeWords } from "./diff-clusters";
import {
  type EndpointChanges,
  endpointChanges,
  endpointLines,
  type WeightChange,
  weightChanges,
  withoutChangedWeights,
} from "./diff-endpoints";

interface Changes {
  added: string[];
  removed: string[];
  changed: string[];
  /** For each changed id, what changed: `path: old → new`, at most FIELD_LIMIT of them. */
  fields: Record<string, string[]>;
}

const FIELD_LIMIT = 8;
const shown = (v: unknown): string => (v === undefined ? "(none)" : JSON.stringify(v).slice(0, 80));

/** The leaf paths at which two JSON values differ, as `path: old → new`. */
export function fieldChanges(a: unknown, b: unknown, path = "", out: string[] = []): string[] {
  if (out.length >= FIELD_LIMIT) return out;
  const isObject = (v: unknown) => typeof v === "object" && v !== null;
  if (isObject(a) && isObject(b) && Array.isArray(a) === Array.isArray(b)) {
    const keys = Array.isArray(a)
      ? Array.from({ length: Math.max(a.length, (b as unknown[]).length) }, (_, i) => i)
      : [...new Set([...Object.keys(a as object), ...Object.keys(b as object)])].sort();
    for (const key of keys) {
      const at = typeof key === "number" ? `${path}[${key}]` : path ? `${path}.${key}` : key;
      fieldChanges((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key], at, out);
    }
    return out;
  }
  if (JSON.stringify(a) !== JSON.stringify(b)) out.push(`${path || "(value)"}: ${shown(a)} → ${shown(b)}`);
  return out;
}

export interface TableDiff {
  from?: string;
  to: string;
  /**
   * Host patterns (`app.example.com`, `*.example.com`, `(any host)`) the table starts or stops answering, and
   * those whose rules changed (`fields`: `HTTP + rule <id>`, `HTTP - rule <id>`). Rules and backends do not
   * name their hosts, so a host renamed shows only here.
   */
  hosts: Changes;
  rules: Changes;
  backends: Changes;
  /** Whether any host's candidate matches changed (also when only a match within a rule did). */
  hostsChanged: boolean;
  /** Clusters whose state (Serving, Draining, Disabled), priority or staleness changed. */
  clusters: ClusterChange[];
  /** For each changed backend whose endpoints changed: which, and how. */
  endpoints: Record<string, EndpointChanges>;
  /** For each changed rule whose backendRef weights changed: which backend's, from and to. */
  weights: Record<string, WeightChange[]>;
  /** Table-wide settings that changed: listeners, locality, failover, egress, health checks. */
  settings: string[];
}

/** Each host pattern a table answers with some route, with the ids of the rules that take it per protocol, in precedence order. */
function hostRules(table: RouteTable): Map<string, Record<string, string[]>> {
  const hosts = new Map<string, Record<string, string[]>>();
  const add = (host: string, protocol: string, list: number[]) => {
    if (list.length === 0) return;
    const ids = [...new Set(list.map((i) => table.rules[table.matches[i]?.rule ?? -1]?.id ?? `(match ${i})`))];
    hosts.set(host, { ...hosts.get(host), [protocol]: ids });
  };
  for (const [protocol, index] of Object.entries(table.hosts)) {
    for (const [host, list] of Object.entries(index.exact)) add(host, protocol, list);
    for (const [suffix, list] of Object.entries(index.wildcard)) add(`*.${suffix}`, protocol, list);
    add("(any host)", protocol, index.any);
  }
  return hosts;
}

/**
 * Host patterns a table answers with some route, across protocols: exact names, `*.suffix` wildcards, and
 * "(any host)" when a route takes any host.
 */
export const servedHosts = (table: RouteTable): Set<string> => new Set(hostRules(table).keys());

/** What changed in the rules that take one host: rules added or removed per protocol, or their order. */
function hostFields(before: Record<string, string[]>, after: Record<string, string[]>): string[] {
  const out: string[] = [];
  for (const protocol of [...new Set([...Object.keys(before), ...Object.keys(after)])].sort()) {
    const was = before[protocol] ?? [];
    const is = after[protocol] ?? [];
    const lines = [
      ...is.filter((id) => !was.includes(id)).map((id) => `${protocol} + rule ${id}`),
      ...was.filter((id) => !is.includes(id)).map((id) => `${protocol} - rule ${id}`),
    ];
    if (lines.length === 0 && was.join() !== is.join()) lines.push(`${protocol}: the same rules in another precedence order`);
    out.push(...lines);
  }
  return out.slice(0, FIELD_LIMIT);
}

function hostChanges(current: RouteTable | null, next: RouteTable): Changes {
  const was = current ? hostRules(current) : new Map<string, Record<string, string[]>>();
  const is = hostRules(next);
  const fields: Record<string, string[]> = {};
  for (const [host, after] of is) {
    const before = was.get(host);
    const changed = before ? hostFields(before, after) : [];
    if (changed.length > 0) fields[host] = changed;
  }
  return {
    added: [...is.keys()].filter((h) => !was.has(h)).sort(),
    removed: [...was.keys()].filter((h) => !is.has(h)).sort(),
    changed: Object.keys(fields).sort(),
    fields,
  };
}

interface RuleView {
  rule: CompiledRule;
  matches: Omit<CompiledMatch, "rule">[];
}

/** Each rule with its matches: built only for ids both tables have (the rest are added or removed). */
function ruleViews(table: RouteTable, ids: Set<string>): Map<string, RuleView> {
  const views = new Map<string, RuleView>();
  // Matches grouped by rule in one pass (a filter per rule is quadratic: 10k rules took a second).
  const matchesOf = table.rules.map((): Omit<CompiledMatch, "rule">[] => []);
  for (const { rule, ...match } of table.matches) matchesOf[rule]?.push(match);
  table.rules.forEach((rule, i) => {
    if (ids.has(rule.id)) views.set(rule.id, { rule, matches: matchesOf[i] ?? [] });
  });
  return views;
}

/** Host keys with the ids of their candidates: equal whatever order the matches are stored in (shards reorder them). */
function hostViews(table: RouteTable): string {
  const ids = (list: number[]) => list.map((i) => table.matches[i]?.id);
  return canonicalJson(
    Object.fromEntries(
      Object.entries(table.hosts).map(([protocol, index]) => [
        protocol,
        {
          exact: Object.fromEntries(Object.entries(index.exact).map(([host, list]) => [host, ids(list)])),
          wildcard: Object.fromEntries(Object.entries(index.wildcard).map(([suffix, list]) => [suffix, ids(list)])),
          any: ids(index.any),
        },
      ]),
    ),
  );
}

/**
 * Added, removed and changed ids; views are built only for ids on both sides, compared as canonical JSON, and
 * `describe` says what changed in a changed one.
 */
function compare<V>(
  before: readonly string[],
  after: readonly string[],
  views: (ids: Set<string>) => [Map<string, V>, Map<string, V>],
  describe: (id: string, old: V, now: V) => string[],
): Changes {
  const was = new Set(before);
  const is = new Set(after);
  const both = new Set(after.filter((id) => was.has(id)));
  const [old, now] = views(both);
  const changed = [...both].filter((id) => canonicalJson(old.get(id)) !== canonicalJson(now.get(id))).sort();
  return {
    added: after.filter((id) => !was.has(id)).sort(),
    removed: before.filter((id) => !is.has(id)).sort(),
    changed,
    fields: Object.fromEntries(changed.map((id) => [id, describe(id, old.get(id)!, now.get(id)!)])),
  };
}

const backendViews = (table: RouteTable, ids: Set<string>) => new Map([...ids].map((id) => [id, table.backends[id]!]));

/** The table-wide settings (all but hosts, matches, rules, backends and clusters) that differ. */
const SETTINGS = ["listeners", "locality", "failover", "egress", "healthChecks"] as const;
const settingChanges = (current: RouteTable, next: RouteTable): string[] =>
  SETTINGS.filter((key) => canonicalJson(current[key] ?? null) !== canonicalJson(next[key] ?? null));

export function diffTables(current: RouteTable | null, next: RouteTable): TableDiff {
  const nothing: Changes = { added: [], removed: [], changed: [], fields: {} };
  const none = { endpoints: {}, weights: {}, settings: [] };
  // A version is the hash of a whole table: the same version is the same table (an unchanged config re-synced).
  if (current?.version === next.version) {
    return {
      from: current.version,
      to: next.version,
      hosts: nothing,
      rules: nothing,
      backends: nothing,
      hostsChanged: false,
      clusters: [],
      ...none,
    };
  }
  if (!current) {
    return {
      to: next.version,
      hosts: hostChanges(null, next),
      rules: { ...nothing, added: next.rules.map((r) => r.id).sort() },
      backends: { ...nothing, added: Object.keys(next.backends).sort() },
      hostsChanged: Object.keys(next.hosts).length > 0,
      clusters: clusterChanges(null, next),
      ...none,
    };
  }
  const endpoints: Record<string, EndpointChanges> = {};
  const weights: Record<string, WeightChange[]> = {};
  return {
    from: current.version,
    to: next.version,
    hosts: hostChanges(current, next),
    rules: compare(
      current.rules.map((r) => r.id),
      next.rules.map((r) => r.id),
      (ids) => [ruleViews(current, ids), ruleViews(next, ids)],
      (id, old, now) => {
        const changed = weightChanges(old.rule, now.rule);
        if (changed.length > 0) weights[id] = changed;
        const fields = fieldChanges(
          { rule: withoutChangedWeights(old.rule, changed), matches: old.matches },
          { rule: withoutChangedWeights(now.rule, changed), matches: now.matches },
        );
        return [...changed.map((w) => `weight of ${w.backend}: ${w.from} → ${w.to}`), ...fields];
      },
    ),
    backends: compare(
      Object.keys(current.backends),
      Object.keys(next.backends),
      (ids) => [backendViews(current, ids), backendViews(next, ids)],
      (id, old, now) => {
        const changed = endpointChanges(old, now, (a, b) => fieldChanges(a, b));
        if (changed) endpoints[id] = changed;
        const { endpoints: _old, ...oldRest } = old;
        const { endpoints: _now, ...nowRest } = now;
        return fieldChanges(oldRest, nowRest);
      },
    ),
    hostsChanged: hostViews(current) !== hostViews(next),
    clusters: clusterChanges(current, next),
    endpoints,
    weights,
    settings: settingChanges(current, next),
  };
}

/**
 * The change, one line each: the clusters whose state or priority changed, then the hosts, rules and backends
 * added, removed or changed (with what changed: a rule's weights and fields, a backend's endpoints), then the
 * table-wide settings.
 */
export function diffLines(diff: TableDiff): string[] {
  const lines: string[] = [];
  for (const c of diff.clusters) lines.push(`  ~ cluster ${c.cluster}: ${clusterChangeWords(c).join("; ")}`);
  for (const [what, d] of [
    ["host", diff.hosts],
    ["rule", diff.rules],
    ["backend", diff.backends],
  ] as const) {
    for (const id of d.added) lines.push(`  + ${what} ${id}`);
    for (const id of d.removed) lines.push(`  - ${what} ${id}`);
    for (const id of d.changed) {
      lines.push(`  ~ ${what} ${id}`);
      const endpoints = what === "backend" ? diff.endpoints[id] : undefined;
      for (const line of endpoints ? endpointLines(endpoints) : []) lines.push(`      ${line}`);
      for (const field of d.fields[id] ?? []) lines.push(`      ${field}`);
    }
  }
  if (diff.settings.length > 0) lines.push(`  ~ settings: ${diff.settings.join(", ")}`);
  return lines;
}
