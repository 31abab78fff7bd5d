/**
 * @module The performance table of docs/performance.md, written by `npm run bench` from the figures it
 * just measured: the page always shows the latest run, and nobody copies numbers by hand.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { markdownTable, replaceBetween } from "../markdown-table";
import type { GrowthFigure, MatcherFigure, ShardedLoadFigure } from "./matcher-bench";
import type { RegexFigure } from "./regex-bench";
import { fmt, median } from "./stats";
import type { DumpFigure } from "./dump-bench";
import type { SyncFigure, SyncScaleFigure } from "./sync-bench";
import type { ThroughputFigure } from "./throughput-bench";
import type { LiveListFigure } from "./live-list-bench";

/** The page that shows the performance table (the README links to it). */
export const PERFORMANCE_FILE = join(import.meta.dirname, "..", "..", "..", "docs", "performance.md");
const START = "<!-- bench:start -->";
const END = "<!-- bench:end -->";

export interface BenchResults {
  started: string;
  quick: boolean;
  matcher: MatcherFigure[];
  growth: GrowthFigure[];
  regex: RegexFigure[];
  load: { routes: number; loadMs: number }[];
  sharded: ShardedLoadFigure[];
  sync: SyncFigure;
  syncScale: SyncScaleFigure[];
  dumps: DumpFigure[];
  liveList: LiveListFigure;
  throughput: ThroughputFigure[];
}

const verdict = (met: boolean) => (met ? "met" : "**not met**");

export function benchTable(r: BenchResults): string {
  const at10k = (kind: string) => r.matcher.find((m) => m.kind === kind && m.routes === 10_000)!;
  const kinds = ["exact", "prefix", "header", "regex"];
  const growthMax = (key: "hot" | "spread") => Math.max(...r.growth.map((g) => g[key]));
  const hostile = r.regex.find((x) => x.input.includes("3,000 slashes"))!;
  const hostileV8 = r.regex.find((x) => x.input.includes("200 slashes"))!;
  const cold = r.sharded.map((s) => s.shardMs);
  const target = (prefix: string) => r.throughput.find((t) => t.target.startsWith(prefix))!;
  const kedge = target("kedge (");
  const sticky = target("kedge, warm sticky");
  const fresh = target("kedge, new session");
  const network = target("kedge, endpoint through a VPC network");
  const live = r.liveList;
  const rows: string[][] = [
    [
      "match, 10k routes over 1k hosts, requests over 512 routes: exact / prefix / header / regex",
      kinds.map((k) => fmt(at10k(k).indexedUs, 2)).join(" / ") + " µs",
      "",
    ],
    [
      "linear scan of the same rules ÷ kedge",
      kinds.map((k) => `${fmt(at10k(k).speedup, 0)}x`).join(" / "),
      "≥ 10x: " + verdict(kinds.every((k) => at10k(k).speedup >= 10)),
    ],
    [
      "match time at 10k ÷ at 10 routes, same 8 routes / 512 routes asked (worst kind)",
      `${fmt(growthMax("hot"), 2)}x / ${fmt(growthMax("spread"), 2)}x`,
      `within 2x: ${verdict(growthMax("hot") <= 2)} / ${verdict(growthMax("spread") <= 2)}`,
    ],
    [
      "regex `/api/.*/.*/.*/items` on a hostile path: RE2 at 3,000 slashes; V8 at 200",
      `${fmt(hostile.re2Us, 0)} µs; V8 ${fmt(hostileV8.v8Us / 1000, 1)} ms`,
      "linear time: met",
    ],
    ["table load, KV JSON → ready matcher, 10k routes", `${fmt(r.load.find((l) => l.routes === 10_000)?.loadMs ?? Number.NaN, 0)} ms`, ""],
    [
      "cold host extra (read + prepare its shard), 10k / 100k routes; root of 100k",
      `${cold.map((ms) => fmt(ms, 1)).join(" / ")} ms; root ${fmt((r.sharded.at(-1)?.rootBytes ?? 0) / 1024, 0)} KiB`,
      `under 20 ms: ${verdict(cold.every((ms) => ms < 20))}`,
    ],
    [
      "sync, 10k routes in 3 clusters: `--dry-run` wall time (median of 5)",
      `${fmt(r.sync.cliWallMs / 1000, 2)} s (load + compile ${fmt((r.sync.loadMs + r.sync.compileMs) / 1000, 2)} s)`,
      `under 2 s: ${verdict(r.sync.cliWallMs < 2000)}`,
    ],
    ...r.syncScale.map((f) => {
      const seconds = (f.loadMs + f.compileMs) / 1000;
      // The issue's goals: 100k routes in 5 s and 512 MiB; 1M in 60 s and 2 GiB.
      const [goalS, goalMiB] = f.routes >= 1_000_000 ? [60, 2048] : [5, 512];
      return [
        `sync, ${f.routes / 1000}k routes over ${f.hosts / 1000}k hosts in ${f.clusters} clusters: load + compile, peak RSS${f.heapMiB ? ` (Node's heap set to ${f.heapMiB} MiB, as in a 2 GiB container)` : ""}`,
        `${fmt(seconds, 1)} s, ${fmt(f.maxRssMB, 0)} MiB`,
        `under ${goalS} s and ${goalMiB >= 1024 ? `${goalMiB / 1024} GiB` : `${goalMiB} MiB`}: ${verdict(seconds < goalS)} / ${verdict(f.maxRssMB < goalMiB)}`,
      ];
    }),
    ...r.syncScale.flatMap(({ routes, hosts, firstPush }) => {
      if (!firstPush) return [];
      const seconds = median(firstPush.map((run) => run.wallMs)) / 1000;
      const mib = Math.max(...firstPush.map((run) => run.maxRssMB));
      return [
        [
          `sync, ${routes / 1000}k routes over ${hosts / 1000}k hosts: a first push to local state (\`kedge sync --persist-to\`), process start to exit (median of ${firstPush.length}); the sync's own peak RSS (largest; Miniflare's host and workerd are processes of their own)`,
          `${fmt(seconds, 1)} s, ${fmt(mib, 0)} MiB`,
          `under 5 s and 512 MiB: ${verdict(seconds < 5)} / ${verdict(mib < 512)}`,
        ],
      ];
    }),
    ...r.syncScale.flatMap(({ routes, hosts, coldHost }) =>
      coldHost
        ? [
            [
              `cold host extra (read + prepare its shard), ${routes / 1000}k routes over ${hosts / 1000}k hosts; its root (read once per isolate)`,
              `${fmt(coldHost.shardMs, 1)} ms; root ${fmt(coldHost.rootBytes / 1024, 0)} KiB in ${fmt(coldHost.rootMs, 1)} ms`,
              `under 10 ms: ${verdict(coldHost.shardMs < 10)}`,
            ],
          ]
        : [],
    ),
    ...r.dumps.map((d) => [
      `\`kedge validate\` of a ${fmt(d.megabytes, 0)} MB ${d.format.toUpperCase()} dump (${(d.services * 2).toLocaleString("en-US")} objects) ÷ the bare parse; peak RSS`,
      `${fmt(d.kedgeMs / 1000, 1)} s ÷ ${fmt(d.bareMs / 1000, 1)} s = ${fmt(d.ratio, 2)}x; ${fmt(d.kedgeRssMB, 0)} MiB`,
      d.megabytes > 64
        ? `under 60 s: ${verdict(d.kedgeMs < 60_000)}`
        : `within 3x, under 512 MiB: ${verdict(d.ratio <= 3 && d.kedgeRssMB < 512)}`,
    ]),
    [
      `\`sync --watch\` of a live cluster, ${(live.slices / 1000).toFixed(0)}k EndpointSlices (${(live.services / 1000).toFixed(0)}k Services, 20 routed): first push; a routed endpoint's change re-published; an unrouted one passed over (1 s quiet period in both); peak RSS`,
      `${fmt(live.firstPushMs / 1000, 1)} s; ${fmt(live.routedChangeMs / 1000, 2)} s; ${fmt(live.unroutedChangeMs / 1000, 2)} s; ${fmt(live.maxRssMB, 0)} MiB`,
      `about a second (under 2 s): ${verdict(live.routedChangeMs < 2000)}`,
    ],
    [
      "kedge (10k-route table) vs bare Worker + a proxy's header work; vs bare Worker",
      `${fmt(kedge.vsHeaderWork)}x; ${fmt(kedge.vsBare)}x`,
      `≥ 0.97x of the former: ${verdict(kedge.vsHeaderWork >= 0.97)}`,
    ],
    ["warm sticky session vs no session", `${fmt(sticky.vsKedge)}x`, `≥ 0.9x: ${verdict(sticky.vsKedge >= 0.9)}`],
    ["new session on every request vs no session", `${fmt(fresh.vsKedge)}x`, ""],
    ["endpoint through a VPC network binding's local stand-in vs a direct fetch", network ? `${fmt(network.vsKedge)}x` : "n/a", ""],
  ];
  const run = `${r.quick ? "`npm run bench -- --quick`" : "`npm run bench`"}, ${r.started.slice(0, 16).replace("T", " ")} UTC`;
  return `Latest run: ${run}.\n\n${markdownTable(["measure", "figure", "goal"], rows)}`;
}

/** Writes the table into docs/performance.md between its bench markers (the name is from when the README held it). */
export function writeReadmeTable(results: BenchResults): void {
  const page = readFileSync(PERFORMANCE_FILE, "utf8");
  writeFileSync(PERFORMANCE_FILE, replaceBetween(page, START, END, benchTable(results)));
}
