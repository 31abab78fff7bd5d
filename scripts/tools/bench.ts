/**
 * @module `npm run bench`: prints the figures as tables and writes them to bench-results.json.
 * Matcher vs a linear scan, table load, kedge vs a bare pass-through Worker (and warm sticky sessions)
 * under one Miniflare, and sync time and memory. Figures, not tests: nothing fails on a number.
 *
 * Options: --quick (smaller sizes, shorter runs), --out FILE.
 */
import { writeFileSync } from "node:fs";
import { benchGrowth, benchMatcher, benchShardedLoad, benchTableLoad, type GrowthFigure, type MatcherFigure } from "./bench/matcher-bench";
import type { MatchKind } from "./bench/route-tables";
import { fmt } from "./bench/stats";
import { writeReadmeTable } from "./bench/readme-table";
import { benchRegex } from "./bench/regex-bench";
import { benchDump } from "./bench/dump-bench";
import { benchSync, benchSyncScale } from "./bench/sync-bench";
import { benchThroughput } from "./bench/throughput-bench";
import { benchLiveList } from "./bench/live-list-bench";

/** The heap Node is given in a container with 2 GiB of memory (the 1M-route goal): room for its own code and stacks. */
const CONTAINER_HEAP_MIB = 1856;

process.env.WRANGLER_SEND_METRICS ??= "false";

const args = process.argv.slice(2);
const quick = args.includes("--quick");
const outIndex = args.indexOf("--out");
const out = outIndex >= 0 ? (args[outIndex + 1] ?? "bench-results.json") : "bench-results.json";

function table(title: string, rows: Record<string, string | number>[]): void {
  console.log(`\n${title}`);
  console.table(rows);
}

async function main(): Promise<void> {
  const started = new Date().toISOString();
  const sizes = quick ? [10, 1000, 10_000] : [10, 1000, 10_000, 50_000];
  const kinds: MatchKind[] = ["exact", "prefix", "header", "regex"];

  const matcher: MatcherFigure[] = [];
  for (const kind of kinds) for (const routes of sizes) matcher.push(await benchMatcher(kind, routes));
  table(
    "Matcher: median time per match (µs), host index vs linear scan over the same rules",
    matcher.map((m) => ({
      kind: m.kind,
      routes: m.routes,
      hosts: m.hosts,
      "kedge µs": fmt(m.indexedUs, 3),
      "kedge µs, same 8 routes": fmt(m.hotUs, 3),
      "linear µs": fmt(m.linearUs, 3),
      "linear/kedge": fmt(m.speedup, 1),
    })),
  );
  const growth: GrowthFigure[] = [];
  for (const kind of kinds) growth.push(await benchGrowth(kind, 10, 10_000));
  // Routes on other hosts: 10k routes, one per host.
  const oneRoutePerHost = await benchGrowth("prefix", 10, 10_000, 10_000);
  const growthRow = (kind: string, g: GrowthFigure) => ({
    kind,
    "same 8 routes asked": fmt(g.hot, 2),
    "512 routes asked": fmt(g.spread, 2),
  });
  table("Matcher growth: time at 10k routes ÷ time at 10 routes, alternating rounds (goal: within 2x)", [
    ...growth.map((g) => growthRow(g.kind, g)),
    growthRow("prefix, 1 route per host", oneRoutePerHost),
  ]);

  const regex = benchRegex();
  table(
    "Regular expressions: RE2 (re2js, linear time, what the Worker uses) vs V8's backtracking RegExp, µs per full match",
    regex.map((r) => ({
      pattern: r.pattern,
      input: r.input,
      "RE2 µs": fmt(r.re2Us, 2),
      "V8 µs": Number.isFinite(r.v8Us) ? fmt(r.v8Us, 2) : "not run (seconds or more)",
      "RE2/V8": Number.isFinite(r.v8Us) ? fmt(r.re2Us / r.v8Us, 1) : "n/a",
    })),
  );

  const load = [await benchTableLoad(1000), await benchTableLoad(10_000)];
  table(
    "Table load: KV JSON → ready matcher",
    load.map((l) => ({
      routes: l.routes,
      "JSON MiB": fmt(l.bytes / 2 ** 20),
      "load ms": fmt(l.loadMs, 1),
      "heap MiB": l.heapMB > 0 ? fmt(l.heapMB, 1) : "n/a (below GC noise)",
    })),
  );

  // A cold host's extra time: reading and preparing its shard (the root is read once per isolate and version).
  const shardedTables = [await benchShardedLoad(10_000), await benchShardedLoad(100_000)];
  table(
    "Sharded table: what a cold isolate reads to serve one host, 10 routes per host (default 1 MiB shards; goal: shard under 20 ms)",
    shardedTables.map((f) => ({
      routes: f.routes,
      shards: f.shards,
      "root KiB": fmt(f.rootBytes / 1024, 0),
      "largest shard MiB": fmt(f.shardBytes / 2 ** 20),
      "root load ms": fmt(f.rootMs, 1),
      "shard load ms (cold host extra)": fmt(f.shardMs, 1),
      "shard heap MiB": Number.isFinite(f.shardHeapMB) ? fmt(f.shardHeapMB, 1) : "n/a",
    })),
  );

  const sync = benchSync(10_000);
  table("Sync: 10k routes across 3 clusters (goal: under 2 s)", [
    {
      "load ms": fmt(sync.loadMs, 0),
      "compile ms": fmt(sync.compileMs, 0),
      "peak RSS MiB": fmt(sync.maxRssMB, 0),
      "sync --dry-run wall ms (median; runs)": `${fmt(sync.cliWallMs, 0)} (${sync.cliWallRuns.map((ms) => fmt(ms, 0)).join(" ")})`,
      "the same, 10 routes": `${fmt(sync.cliWallSmallMs, 0)} (${sync.cliWallSmallRuns.map((ms) => fmt(ms, 0)).join(" ")})`,
    },
  ]);

  // A real cluster's size: 8,000 Services and 8,000 EndpointSlices (about 30 MB of YAML), and about 100 MB.
  const dumps = [benchDump(8000, "yaml"), benchDump(8000, "json"), ...(quick ? [] : [benchDump(25_000, "yaml", 1)])];
  table(
    "Reading a cluster's dump (kubectl get svc,endpointslices -A; 20 Services routed): kedge validate vs the bare parse, each a fresh process (goal: within 3x, under 512 MiB; 100 MB under 60 s)",
    dumps.map((d) => ({
      objects: d.services * 2,
      format: d.format,
      MB: fmt(d.megabytes, 0),
      "bare parse ms": fmt(d.bareMs, 0),
      "kedge validate ms": fmt(d.kedgeMs, 0),
      "kedge ÷ bare": fmt(d.ratio, 2),
      "bare peak RSS MiB": fmt(d.bareRssMB, 0),
      "kedge peak RSS MiB": fmt(d.kedgeRssMB, 0),
    })),
  );

  const liveList = await benchLiveList(10_000);
  table(
    "A live cluster under sync --watch: 10k Services and 20k EndpointSlices from a stand-in API server, 20 routed (goal: one change re-published in about a second)",
    [
      {
        "first push s": fmt(liveList.firstPushMs / 1000, 1),
        "routed endpoint change → pushed s": fmt(liveList.routedChangeMs / 1000, 2),
        "unrouted change → passed over s": fmt(liveList.unroutedChangeMs / 1000, 2),
        "peak RSS MiB": fmt(liveList.maxRssMB, 0),
      },
    ],
  );

  const throughput = await benchThroughput({ seconds: quick ? 1 : 1.5, rounds: quick ? 6 : 12, concurrency: 8 });
  table(
    "End to end under Miniflare, one loopback origin, concurrency 8, alternating runs; ratios are medians of per-round ratios (goal: ≥ 0.9x)",
    throughput.map((t) => ({
      target: t.target,
      "req/s": fmt(t.rps, 0),
      "p50 ms": fmt(t.p50Ms),
      "p99 ms": fmt(t.p99Ms),
      errors: t.errors,
      "workerd CPU µs/req": t.cpuUsPerRequest === undefined ? "n/a" : fmt(t.cpuUsPerRequest, 0),
      "vs bare": fmt(t.vsBare),
      "vs kedge": fmt(t.vsKedge),
      "vs bare + header work": fmt(t.vsHeaderWork),
    })),
  );

  // Last: writing the 1M-route config (full run only; about two minutes) grows this process's heap, which the
  // stand-in API server and the throughput origin above share. Its sync runs in a heap of 1856 MiB, as a 2 GiB
  // container runs it (NODE_OPTIONS=--max-old-space-size): V8 collects before it grows past that, where with
  // an 8 GiB limit it let its heap grow to 3195 MiB first (measured once, 2026-11-29).
  const syncScale = [
    benchSyncScale(100_000, 10_000, { push: true }),
    ...(quick ? [] : [benchSyncScale(1_000_000, 100_000, { heapMiB: CONTAINER_HEAP_MIB, coldHost: true })]),
  ];
  table(
    "Sync at scale: routes over hosts in 3 clusters, load + compile in a fresh process (goals: 100k under 5 s and 512 MiB; 1M under 60 s and 2 GiB, a cold host under 10 ms)",
    syncScale.map((f) => ({
      routes: f.routes,
      hosts: f.hosts,
      "load ms": fmt(f.loadMs, 0),
      "compile ms": fmt(f.compileMs, 0),
      "total s": fmt((f.loadMs + f.compileMs) / 1000, 1),
      "peak RSS MiB": fmt(f.maxRssMB, 0),
      "first push to local state: s; the sync's peak RSS MiB (each run)": f.firstPush
        ? f.firstPush.map((run) => `${fmt(run.wallMs / 1000, 2)}; ${fmt(run.maxRssMB, 0)}`).join(" · ")
        : "not measured",
      "cold host: shard load ms; root KiB, load ms": f.coldHost
        ? `${fmt(f.coldHost.shardMs, 1)}; ${fmt(f.coldHost.rootBytes / 1024, 0)} KiB, ${fmt(f.coldHost.rootMs, 1)}`
        : "not measured",
    })),
  );

  const results = {
    started,
    quick,
    node: process.version,
    matcher,
    growth,
    growthOneRoutePerHost: oneRoutePerHost,
    regex,
    load,
    sharded: shardedTables,
    sync,
    syncScale,
    dumps,
    liveList,
    throughput,
  };
  writeFileSync(out, `${JSON.stringify(results, null, 2)}\n`);
  writeReadmeTable(results);
  console.log(`\nwrote ${out} and the performance table of docs/performance.md`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
