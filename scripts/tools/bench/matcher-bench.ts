/**
 * @module Matcher benchmark: time per match through the host index, against a plain linear scan over
 * the same compiled matches (what Envoy-style route lists do), at growing table sizes.
 */
import { compileRouteTable } from "../../../src/compile/compile-route-table";
import { matchHolds, matchRequest, type RequestFacts } from "../../../src/routing/match-request";
import { type PreparedMatch, type PreparedTable, prepareMatch, prepareTable } from "../../../src/routing/prepared-table";
import { canonicalJson } from "../../../src/table/canonical-json";
import { planStorage, type StoragePlan } from "../../../src/table/shard-table";
import { parseRouteTable, parseStoredTable } from "../../../src/table/parse-route-table";
import { isSharded, type RouteTable } from "../../../src/table/route-table";
import { prepareDirectories, shardFor } from "../../../src/routing/shard-directory";
import { benchEdge, benchManifests, type MatchKind, requestFor } from "./route-tables";
import { median, timePerCall } from "./stats";

export interface MatcherFigure {
  kind: MatchKind;
  routes: number;
  hosts: number;
  /** Requests spread over 512 routes (or all of them): includes CPU cache misses over a large table. */
  indexedUs: number;
  /** The same 8 routes asked at every size: the matcher's own growth, with the request mix held equal. */
  hotUs: number;
  linearUs: number;
  speedup: number;
}

export async function compileBenchTable(
  kind: MatchKind,
  routes: number,
  session = false,
  originPort?: number,
  hosts = Math.min(1000, routes),
): Promise<RouteTable> {
  const { table } = await compileRouteTable(benchEdge(3), benchManifests({ routes, hosts, clusters: 3, kind, originPort }, session));
  return table;
}

/** Every match with the exact hosts it serves, in table order: the linear scan's route list. */
function linearRoutes(prepared: PreparedTable): { hosts: Set<string>; match: PreparedMatch }[] {
  const hostsOf = new Map<number, Set<string>>();
  for (const [host, candidates] of Object.entries(prepared.table.hosts.HTTP?.exact ?? {})) {
    for (const i of candidates) hostsOf.set(i, (hostsOf.get(i) ?? new Set()).add(host));
  }
  return prepared.table.matches.map((match, i) => ({ hosts: hostsOf.get(i) ?? new Set(), match: prepareMatch(match) }));
}

function linearMatch(routes: { hosts: Set<string>; match: PreparedMatch }[], req: RequestFacts): PreparedMatch | null {
  for (const r of routes) if (r.hosts.has(req.host) && matchHolds(r.match, req)) return r.match;
  return null;
}

/** `hosts` defaults to min(1000, routes); hosts = routes puts one route on each host. */
export async function benchMatcher(kind: MatchKind, routes: number, hosts = Math.min(1000, routes)): Promise<MatcherFigure> {
  const table = await compileBenchTable(kind, routes, false, undefined, hosts);
  const prepared = prepareTable(table);
  const requests = Array.from({ length: 512 }, (_, i) => requestFor(kind, (i * 7919) % routes, hosts));
  for (const r of requests) if (!matchRequest(prepared, r)) throw new Error(`bench request ${r.host}${r.path} does not match`);
  const linear = linearRoutes(prepared);
  let next = 0;
  const indexedMs = timePerCall(() => {
    matchRequest(prepared, requests[next++ & 511]!);
  });
  const hot = requests.map((_, i) => requests[i & 7]!);
  const hotMs = timePerCall(() => {
    matchRequest(prepared, hot[next++ & 511]!);
  });
  const linearMs = timePerCall(() => {
    linearMatch(linear, requests[next++ & 511]!);
  }, 5);
  return {
    kind,
    routes,
    hosts,
    indexedUs: indexedMs * 1000,
    hotUs: hotMs * 1000,
    linearUs: linearMs * 1000,
    speedup: linearMs / indexedMs,
  };
}

export interface GrowthFigure {
  kind: MatchKind;
  /** Time per match at `large` routes ÷ at `small`, the same 8 routes asked (the matcher's own growth). */
  hot: number;
  /** The same with requests spread over 512 routes (adds the CPU cache misses of a larger table). */
  spread: number;
}

function timeLoop(match: (i: number) => void, calls: number): number {
  const t = performance.now();
  for (let i = 0; i < calls; i++) match(i);
  return (performance.now() - t) / calls;
}

/**
 * Growth from `small` to `large` routes, timed in alternating rounds: each ratio is the median of the
 * ratios within a round, so the shared machine's slow spells fall on both sides of it.
 */
export async function benchGrowth(
  kind: MatchKind,
  small: number,
  large: number,
  largeHosts = Math.min(1000, large),
): Promise<GrowthFigure> {
  const setup = async (routes: number, hosts: number) => {
    const prepared = prepareTable(await compileBenchTable(kind, routes, false, undefined, hosts));
    const spread = Array.from({ length: 512 }, (_, i) => requestFor(kind, (i * 7919) % routes, hosts));
    return { prepared, spread, hot: spread.slice(0, 8) };
  };
  const a = await setup(small, Math.min(1000, small));
  const b = await setup(large, largeHosts);
  const rounds = { hot: [] as number[], spread: [] as number[] };
  const calls = 20_000;
  for (let r = 0; r < 15; r++) {
    const hotA = timeLoop((i) => matchRequest(a.prepared, a.hot[i & 7]!), calls);
    const hotB = timeLoop((i) => matchRequest(b.prepared, b.hot[i & 7]!), calls);
    const spreadA = timeLoop((i) => matchRequest(a.prepared, a.spread[i & 511]!), calls);
    const spreadB = timeLoop((i) => matchRequest(b.prepared, b.spread[i & 511]!), calls);
    rounds.hot.push(hotB / hotA);
    rounds.spread.push(spreadB / spreadA);
  }
  return { kind, hot: median(rounds.hot), spread: median(rounds.spread) };
}

export interface ShardedLoadFigure {
  routes: number;
  shards: number;
  /** Largest shard's JSON. */
  shardBytes: number;
  rootBytes: number;
  /** Root JSON to a ready directory, plus one shard's JSON to a ready matcher: what the first request of a host costs. */
  rootMs: number;
  shardMs: number;
  shardHeapMB: number;
}

/** A table above the shard size: what an isolate reads and holds to serve one host. */
export async function benchShardedLoad(routes: number, shardBytes?: number, compiled?: RouteTable): Promise<ShardedLoadFigure> {
  const table = compiled ?? (await compileBenchTable("prefix", routes, false, undefined, routes / 10));
  const planned = planStorage(table, { shardBytes });
  if (!planned.ok) throw new Error(planned.problem);
  return timeColdHost(coldHostTexts(planned.plan, routes));
}

/** What an isolate reads to serve a host it has not served: the table's root, and the host's shard (the largest). */
export interface ColdHostTexts {
  routes: number;
  shards: number;
  root: string;
  /** The host, its shard's place in the table's shards, and that shard's text. */
  host: string;
  index: number;
  shard: string;
}

export function coldHostTexts({ root, shards }: StoragePlan, routes: number): ColdHostTexts {
  if (!isSharded(root.value)) throw new Error(`${routes} routes fit one value; nothing to shard`);
  // The largest shard, by the sizes its root records.
  const sizes = root.value.shards.map((s) => s.bytes);
  const index = sizes.indexOf(Math.max(...sizes));
  const shard = shards[index]!;
  const host = Object.keys(shard.value().hosts.HTTP!.exact)[0]!;
  return { routes, shards: shards.length, root: root.text, host, index, shard: shard.text() };
}

/**
 * The root read to a ready shard directory (once per isolate and table version), then the host's shard read to a
 * ready matcher (what a cold host adds to its first request): medians of 7, after 3 rounds untimed, as an isolate
 * that has served other hosts runs this code.
 */
export function timeColdHost(texts: ColdHostTexts): ShardedLoadFigure {
  const rootTimes: number[] = [];
  const shardTimes: number[] = [];
  for (let i = -3; i < 7; i++) {
    let t = performance.now();
    const parsed = parseStoredTable(JSON.parse(texts.root));
    if (!parsed.ok || !isSharded(parsed.value)) throw new Error("root did not parse");
    const directories = prepareDirectories(parsed.value);
    if (i >= 0) rootTimes.push(performance.now() - t);
    t = performance.now();
    if (shardFor(directories, "HTTP", texts.host) !== texts.index) throw new Error(`the root does not send ${texts.host} to its shard`);
    const shard = parseRouteTable(JSON.parse(texts.shard));
    if (!shard.ok) throw new Error(shard.reason);
    prepareTable(shard.value);
    if (i >= 0) shardTimes.push(performance.now() - t);
  }
  return {
    routes: texts.routes,
    shards: texts.shards,
    shardBytes: texts.shard.length,
    rootBytes: texts.root.length,
    rootMs: median(rootTimes),
    shardMs: median(shardTimes),
    shardHeapMB: heapOf(() => prepareTable((parseRouteTable(JSON.parse(texts.shard)) as { value: RouteTable }).value)),
  };
}

/** MiB of heap the value `make` returns keeps alive (NaN without --expose-gc). */
function heapOf(make: () => { table: RouteTable }): number {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) return Number.NaN;
  gc();
  const before = process.memoryUsage().heapUsed;
  const kept = make();
  gc();
  const heapMB = (process.memoryUsage().heapUsed - before) / 2 ** 20;
  if (!kept.table) throw new Error("unreachable");
  return heapMB;
}

export interface LoadFigure {
  routes: number;
  bytes: number;
  loadMs: number;
  heapMB: number;
}

/** KV's JSON text to a ready matcher (parse, validate, prepare), and the heap the prepared table holds. */
export async function benchTableLoad(routes: number): Promise<LoadFigure> {
  const json = canonicalJson(await compileBenchTable("prefix", routes));
  const times: number[] = [];
  for (let i = 0; i < 7; i++) {
    const t = performance.now();
    const parsed = parseRouteTable(JSON.parse(json));
    if (!parsed.ok) throw new Error(parsed.reason);
    prepareTable(parsed.value);
    times.push(performance.now() - t);
  }
  const heapMB = heapOf(() => prepareTable((parseRouteTable(JSON.parse(json)) as { value: RouteTable }).value));
  return { routes, bytes: json.length, loadMs: median(times), heapMB };
}
