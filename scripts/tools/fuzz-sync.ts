/**
 * @module `npm run fuzz`: the example config, mutated many ways (fields deleted, values replaced by
 * values of other types, objects duplicated, text truncated or garbled), fed to the sync. The sync must
 * never crash (exit 3) and never leave the pointer on a missing or unreadable table. Seeded and bounded.
 *
 * Options: --iterations N (default 300), --seed N (default 1), --push-every N (real pushes, default 25).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { parseAllDocuments, stringify } from "yaml";
import { compileLoaded } from "../config/compile-loaded";
import { parseRouteTable, parseTablePointer } from "../../src/table/parse-route-table";
import { KV_KEYS } from "../../src/table/kv-keys";
import { EXIT } from "../cli/command";
import { runCli } from "../cli/program";
import { loadConfig } from "../config/load-config";
import { openLocalKv } from "../store/local-kv";
import { planOrRefuse } from "../cli/compile-for-edge";
import { UserError } from "../lib/user-error";

process.env.WRANGLER_SEND_METRICS ??= "false";

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};

/** A small seeded generator (mulberry32), so a failing iteration can be replayed with its seed. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WEIRD_VALUES: unknown[] = [
  null,
  0,
  -1,
  1e12,
  3.5,
  "",
  "*",
  "../../etc",
  "a".repeat(5000),
  "x\r\nInjected: 1",
  [],
  {},
  [null],
  { a: 1 },
  true,
  "1h",
  "0s",
  "/",
];

type Json = Record<string, unknown> | unknown[];

/** Every container path inside an object, for picking a spot to mutate. */
function containers(value: unknown, at: (string | number)[] = [], out: { path: (string | number)[]; node: Json }[] = []) {
  if (value && typeof value === "object") {
    out.push({ path: at, node: value as Json });
    for (const [k, v] of Object.entries(value)) containers(v, [...at, Array.isArray(value) ? Number(k) : k], out);
  }
  return out;
}

function mutateObject(doc: Record<string, unknown>, random: () => number): string {
  const spots = containers(doc);
  const spot = spots[Math.floor(random() * spots.length)]!;
  const keys = Object.keys(spot.node);
  const key = keys[Math.floor(random() * keys.length)];
  const at = [...spot.path, key ?? ""].join(".");
  const node = spot.node as Record<string, unknown>;
  if (key === undefined) {
    node.extra = WEIRD_VALUES[Math.floor(random() * WEIRD_VALUES.length)];
    return `add ${at}extra`;
  }
  const roll = random();
  if (roll < 0.35) {
    delete node[key];
    return `delete ${at}`;
  }
  if (roll < 0.85) {
    node[key] = structuredClone(WEIRD_VALUES[Math.floor(random() * WEIRD_VALUES.length)]);
    return `replace ${at}`;
  }
  node[key] = structuredClone(node[key]);
  if (Array.isArray(node[key])) (node[key] as unknown[]).push(...structuredClone(node[key] as unknown[]));
  return `duplicate ${at}`;
}

function mutateText(text: string, random: () => number): [string, string] {
  const cut = Math.floor(random() * text.length);
  const roll = random();
  if (roll < 0.4) return [text.slice(0, cut), `truncate at ${cut}`];
  if (roll < 0.7)
    return [`${text.slice(0, cut)}${"{[:-\"'&*!|>%@`"[Math.floor(random() * 15)]}${text.slice(cut)}`, `insert a character at ${cut}`];
  return [`${text}\n---\n${text.slice(cut)}`, `append a fragment from ${cut}`];
}

function listFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? listFiles(path) : [path];
  });
}

export interface FuzzReport {
  iterations: number;
  exitCodes: Record<string, number>;
  crashes: { iteration: number; mutation: string; error: string }[];
  partialTables: number;
  pushes: number;
}

/** Load + compile + size check, the way the sync does before it writes; the exit code it would give. */
async function compileExitCode(configDir: string): Promise<number> {
  try {
    const loaded = loadConfig(configDir);
    const result = await compileLoaded(loaded);
    planOrRefuse(result.table);
    if (!parseRouteTable(JSON.parse(JSON.stringify(result.table))).ok) throw new Error("compiled a table the Worker would reject");
    return result.diagnostics.some((d) => d.severity === "error") ? 1 : 0;
  } catch (error) {
    if (error instanceof UserError) return 2;
    throw error;
  }
}

export async function fuzzSync(options: { iterations: number; seed: number; pushEvery: number; source?: string }): Promise<FuzzReport> {
  const source = options.source ?? "config";
  const files = listFiles(source).map((path) => ({ rel: relative(source, path), text: readFileSync(path, "utf8") }));
  const random = seeded(options.seed);
  const work = mkdtempSync(join(tmpdir(), "kedge-fuzz-"));
  const state = join(work, "state");
  const report: FuzzReport = { iterations: 0, exitCodes: {}, crashes: [], partialTables: 0, pushes: 0 };
  // What the sync prints to stderr, kept for the report when it exits with a bug.
  let errors: string[] = [];
  const quiet = { out: () => {}, err: (text: string) => void errors.push(text) };
  try {
    for (let iteration = 0; iteration < options.iterations; iteration++) {
      const config = join(work, `config-${iteration % 2}`);
      rmSync(config, { recursive: true, force: true });
      const target = files[Math.floor(random() * files.length)]!;
      let mutation = "";
      for (const f of files) {
        let text = f.text;
        if (f === target) {
          if (random() < 0.25) [text, mutation] = mutateText(text, random);
          else {
            const docs = parseAllDocuments(text).map((d) => d.toJS() as Record<string, unknown>);
            const doc = docs[Math.floor(random() * docs.length)];
            mutation = doc && typeof doc === "object" ? mutateObject(doc, random) : "none";
            text = docs.map((d) => stringify(d)).join("---\n");
          }
          mutation = `${f.rel}: ${mutation}`;
        }
        mkdirSync(dirname(join(config, f.rel)), { recursive: true });
        writeFileSync(join(config, f.rel), text);
      }
      report.iterations++;
      const push = options.pushEvery > 0 && iteration % options.pushEvery === 0;
      let code: number;
      try {
        errors = [];
        code = push ? await runCli(["sync", "--config", config, "--persist-to", state], quiet) : await compileExitCode(config);
      } catch (error) {
        code = EXIT.BUG;
        report.crashes.push({ iteration, mutation, error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
      }
      if (code === EXIT.BUG && push)
        report.crashes.push({ iteration, mutation, error: `the sync exited ${EXIT.BUG}:\n${errors.join("\n")}` });
      report.exitCodes[code] = (report.exitCodes[code] ?? 0) + 1;
      if (push) {
        report.pushes++;
        const kv = await openLocalKv(state, "kedge-routes-local");
        try {
          const name = "kedge";
          const raw = await kv.get(KV_KEYS.current(name));
          if (raw !== null) {
            const pointer = parseTablePointer(JSON.parse(raw));
            const blob = pointer.ok ? await kv.get(KV_KEYS.blob(name, pointer.value.version)) : null;
            if (!pointer.ok || blob === null || !parseRouteTable(JSON.parse(blob)).ok) report.partialTables++;
          }
        } finally {
          await kv.close();
        }
      }
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return report;
}

if (process.argv[1]?.endsWith("fuzz-sync.ts")) {
  const options = { iterations: arg("--iterations", 300), seed: arg("--seed", 1), pushEvery: arg("--push-every", 25) };
  const started = performance.now();
  fuzzSync(options)
    .then((report) => {
      console.log(
        `fuzzed the sync with ${report.iterations} mutated configs (seed ${options.seed}) in ${((performance.now() - started) / 1000).toFixed(1)} s`,
      );
      console.table([
        {
          tried: report.iterations,
          "exit 0": report.exitCodes[0] ?? 0,
          "exit 1 (rejected)": report.exitCodes[1] ?? 0,
          "exit 2 (unusable input)": report.exitCodes[2] ?? 0,
          crashes: report.crashes.length,
          "real pushes": report.pushes,
          "partial tables": report.partialTables,
        },
      ]);
      for (const c of report.crashes.slice(0, 5)) console.error(`crash at iteration ${c.iteration} (${c.mutation}):\n${c.error}`);
      process.exit(report.crashes.length === 0 && report.partialTables === 0 ? 0 : 1);
    })
    .catch((error: unknown) => {
      console.error(error);
      process.exit(1);
    });
}
