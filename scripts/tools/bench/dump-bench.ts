/**
 * @module Dump benchmark: a large cluster's `kubectl get svc,endpointslices -A` dump (cluster-dump.ts; 20 of its
 * Services routed), read by `kedge validate` and by the bare parser alone (js-yaml for YAML, JSON.parse for
 * JSON), each in a fresh process of its own, in the same run: the ratio is what kedge adds to the parse.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { clusterDump, routesFor } from "./cluster-dump";

const ROOT = resolve(import.meta.dirname, "..", "..", "..");

export interface DumpFigure {
  services: number;
  format: "yaml" | "json";
  megabytes: number;
  bareMs: number;
  bareRssMB: number;
  kedgeMs: number;
  kedgeRssMB: number;
  /** kedge validate's time ÷ the bare parse's. */
  ratio: number;
}

interface Probe {
  ms: number;
  maxRssMB: number;
}

const probe = (mode: "bare" | "kedge", path: string): Probe =>
  JSON.parse(
    execFileSync(process.execPath, [join(ROOT, "scripts/run-bundled.mjs"), join(ROOT, "scripts/tools/bench/dump-probe.ts"), mode, path], {
      cwd: ROOT,
      env: { ...process.env, WRANGLER_SEND_METRICS: "false" },
      maxBuffer: 1 << 20,
    }).toString(),
  ) as Probe;

/** Validates a dump of `services` Services (and as many EndpointSlices), beside its bare parse; the faster of `runs` each. */
export function benchDump(services: number, format: "yaml" | "json", runs = 2): DumpFigure {
  const dir = mkdtempSync(join(tmpdir(), "kedge-bench-dump-"));
  try {
    const options = { services, routed: 20, format };
    mkdirSync(join(dir, "clusters", "big"), { recursive: true });
    writeFileSync(
      join(dir, "kedge.yaml"),
      "apiVersion: kedge.dev/v1alpha1\nkind: EdgeConfig\nmetadata: { name: dump }\nspec: { gatewayClassName: kedge, clusters: [{ name: big }] }\n",
    );
    const file = join(dir, "clusters", "big", `dump.${format}`);
    writeFileSync(file, clusterDump(options));
    writeFileSync(join(dir, "clusters", "big", "routes.yaml"), routesFor(options));
    const bare: Probe[] = [];
    const kedge: Probe[] = [];
    // Alternating, so both meet the machine in the same state.
    for (let run = 0; run < runs; run++) {
      bare.push(probe("bare", file));
      kedge.push(probe("kedge", dir));
    }
    const best = (list: Probe[]) => list.reduce((a, b) => (b.ms < a.ms ? b : a));
    const b = best(bare);
    const k = best(kedge);
    return {
      services,
      format,
      megabytes: statSync(file).size / 2 ** 20,
      bareMs: b.ms,
      bareRssMB: Math.max(...bare.map((p) => p.maxRssMB)),
      kedgeMs: k.ms,
      kedgeRssMB: Math.max(...kedge.map((p) => p.maxRssMB)),
      ratio: k.ms / b.ms,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
