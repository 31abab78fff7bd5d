/**
 * @module Sync benchmark: a config folder of 10k routes across three clusters (JSON Lists, as
 * `kubectl get -o json` writes them); load + compile time and peak memory in a fresh process, and the
 * wall time of `sync --dry-run` as a user runs it, on that folder and on a 10-route one (what every
 * sync pays whatever its size).
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { benchManifests } from "./route-tables";
import { median } from "./stats";
import type { ShardedLoadFigure } from "./matcher-bench";

const ROOT = resolve(import.meta.dirname, "..", "..", "..");
/** The probe runs as the CLI runs (one esbuild bundle, scripts/run-bundled.mjs): tsx's per-closure naming would add ~20 %. */
const PROBE = [join(ROOT, "scripts/run-bundled.mjs"), join(ROOT, "scripts/tools/bench/sync-probe.ts")];
/** `kedge sync` pushing to local state, as the CLI runs it (a bundle), reporting its peak memory. */
const PUSH_PROBE = [join(ROOT, "scripts/run-bundled.mjs"), join(ROOT, "scripts/tools/bench/push-probe.ts")];
/** First pushes timed per config: runs of one build differed by up to 0.5 s on this machine. */
const PUSH_RUNS = 3;
/** Times a cold host in a process of its own: the compile's heap would slow what a small isolate does. */
const COLD_HOST_PROBE = [join(ROOT, "scripts/run-bundled.mjs"), join(ROOT, "scripts/tools/bench/cold-host-probe.ts")];

export interface SyncFigure {
  routes: number;
  clusters: number;
  loadMs: number;
  compileMs: number;
  maxRssMB: number;
  /** `sync --dry-run` wall time, median of RUNS alternating with the small config; and every run. */
  cliWallMs: number;
  cliWallRuns: number[];
  /** The same command on a 10-route config: the fixed cost (Node start, Miniflare load, workerd start) every sync pays. */
  cliWallSmallMs: number;
  cliWallSmallRuns: number[];
}

/** Writes a config folder of `routes` routes across `clusters` clusters (JSON Lists, as kubectl writes them). */
function writeConfig(dir: string, routes: number, clusters: number, hosts = Math.min(1000, routes)): void {
  const names = Array.from({ length: clusters }, (_, c) => `c${c}`);
  writeFileSync(
    join(dir, "kedge.yaml"),
    `apiVersion: kedge.dev/v1alpha1\nkind: EdgeConfig\nmetadata: { name: bench }\nspec:\n  gatewayClassName: kedge\n  clusters: [${names.map((n) => `{ name: ${n} }`).join(", ")}]\n`,
  );
  const manifests = benchManifests({ routes, hosts, clusters, kind: "prefix" });
  for (const name of names) {
    mkdirSync(join(dir, "clusters", name), { recursive: true });
    const items = manifests.filter((m) => m.cluster === name).map((m) => m.raw);
    writeFileSync(join(dir, "clusters", name, "all.json"), JSON.stringify({ apiVersion: "v1", kind: "List", items }));
  }
}

const env = { ...process.env, WRANGLER_SEND_METRICS: "false" };
/** Wall-time runs per config, alternating big and small: one run swings ±0.3 s on this machine. */
const RUNS = 5;

/** Wall time of `sync --dry-run` on a config folder, as a user runs it. */
function dryRunWallMs(dir: string): number {
  const t = performance.now();
  execFileSync(
    process.execPath,
    // As `npm run sync` runs it: one esbuild bundle (built by benchSync's warm-up run, not timed here).
    [
      join(ROOT, "scripts/run-bundled.mjs"),
      join(ROOT, "scripts/sync.ts"),
      "--config",
      dir,
      "--dry-run",
      "--json",
      "--persist-to",
      join(dir, "state"),
    ],
    { cwd: ROOT, env, stdio: "ignore", maxBuffer: 1 << 28 },
  );
  return performance.now() - t;
}

export interface SyncScaleFigure {
  routes: number;
  hosts: number;
  clusters: number;
  loadMs: number;
  compileMs: number;
  maxRssMB: number;
  /** The heap Node was given (--max-old-space-size), when not its default. */
  heapMiB?: number;
  /** What a cold host costs the edge with this table in shards, when asked for. */
  coldHost?: ShardedLoadFigure;
  /** A first push to empty local state, end to end (process start to exit), when asked for: each run. */
  firstPush?: { wallMs: number; maxRssMB: number }[];
}

/** A first push of the config in `dir` to fresh local state, timed from the process's start to its exit. */
function firstPush(dir: string): { wallMs: number; maxRssMB: number } {
  const state = join(dir, "push-state");
  rmSync(state, { recursive: true, force: true });
  const t = performance.now();
  const out = execFileSync(process.execPath, [...PUSH_PROBE, dir, state], { cwd: ROOT, env }).toString();
  const wallMs = performance.now() - t;
  return { wallMs, ...(JSON.parse(out) as { maxRssMB: number }) };
}

/**
 * Load + compile of `routes` routes over `hosts` hosts in a fresh process: time and peak RSS (no CLI runs).
 * `heapMiB` sets the process's heap (--max-old-space-size), as a user sets it for a container's memory limit.
 */
export function benchSyncScale(
  routes: number,
  hosts: number,
  options: { clusters?: number; heapMiB?: number; coldHost?: boolean; push?: boolean } = {},
): SyncScaleFigure {
  const { clusters = 3, heapMiB, coldHost = false, push = false } = options;
  const dir = mkdtempSync(join(tmpdir(), "kedge-bench-sync-scale-"));
  try {
    writeConfig(dir, routes, clusters, hosts);
    const heap = heapMiB ? [`--max-old-space-size=${heapMiB}`] : [];
    const coldHostFile = join(dir, "cold-host.json");
    const probe = JSON.parse(
      execFileSync(process.execPath, [...heap, ...PROBE, dir, ...(coldHost ? ["--cold-host", coldHostFile] : [])], {
        cwd: ROOT,
        env,
        maxBuffer: 1 << 28,
      }).toString(),
    ) as { rules: number; loadMs: number; compileMs: number; maxRssMB: number };
    if (probe.rules !== routes) throw new Error(`expected ${routes} rules, compiled ${probe.rules}`);
    const { loadMs, compileMs, maxRssMB } = probe;
    const figure: SyncScaleFigure = { routes, hosts, clusters, loadMs, compileMs, maxRssMB, ...(heapMiB ? { heapMiB } : {}) };
    if (coldHost)
      figure.coldHost = JSON.parse(execFileSync(process.execPath, [...COLD_HOST_PROBE, coldHostFile], { cwd: ROOT, env }).toString());
    if (push) {
      // Builds the probe's bundle, untimed.
      execFileSync(process.execPath, PUSH_PROBE, { cwd: ROOT, env, stdio: "ignore" });
      figure.firstPush = Array.from({ length: PUSH_RUNS }, () => firstPush(dir));
    }
    return figure;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export function benchSync(routes: number, clusters = 3): SyncFigure {
  const dir = mkdtempSync(join(tmpdir(), "kedge-bench-sync-"));
  const small = mkdtempSync(join(tmpdir(), "kedge-bench-sync-small-"));
  try {
    writeConfig(dir, routes, clusters);
    writeConfig(small, 10, clusters);
    const probe = JSON.parse(execFileSync(process.execPath, [...PROBE, dir], { cwd: ROOT, env }).toString()) as {
      rules: number;
      loadMs: number;
      compileMs: number;
      maxRssMB: number;
    };
    if (probe.rules !== routes) throw new Error(`expected ${routes} rules, compiled ${probe.rules}`);
    execFileSync(process.execPath, [join(ROOT, "scripts/run-bundled.mjs"), join(ROOT, "scripts/sync.ts"), "--help"], {
      env,
      stdio: "ignore",
    });
    const big: number[] = [];
    const tiny: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      big.push(dryRunWallMs(dir));
      tiny.push(dryRunWallMs(small));
    }
    return {
      routes,
      clusters,
      loadMs: probe.loadMs,
      compileMs: probe.compileMs,
      maxRssMB: probe.maxRssMB,
      cliWallMs: median(big),
      cliWallRuns: big,
      cliWallSmallMs: median(tiny),
      cliWallSmallRuns: tiny,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
    rmSync(small, { recursive: true, force: true });
  }
}
