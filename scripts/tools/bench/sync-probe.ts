/** @module Child process of the sync benchmark: load a config folder and compile it, then report time and peak memory. */
import { compileLoaded } from "../../config/compile-loaded";
import { loadConfig } from "../../config/load-config";

const dir = process.argv[2] ?? "config";
const t0 = performance.now();
const loaded = loadConfig(dir);
const t1 = performance.now();
const { table } = await compileLoaded(loaded);
const t2 = performance.now();
process.stdout.write(
  JSON.stringify({ rules: table.rules.length, loadMs: t1 - t0, compileMs: t2 - t1, maxRssMB: process.resourceUsage().maxRSS / 1024 }),
);
