/**
 * @module Child process of the sync benchmark: load a config folder and compile it, then report time and peak
 * memory. With `--cold-host FILE`, then also plan the table's storage and write to FILE what an isolate reads to
 * serve a host it has not served (cold-host-probe.ts times it in a process of its own, as small as an isolate).
 */
import { writeFileSync } from "node:fs";
import { compileLoaded } from "../../config/compile-loaded";
import { loadConfig } from "../../config/load-config";
import { planStorage } from "../../../src/table/shard-table";
import { coldHostTexts } from "./matcher-bench";

const dir = process.argv[2] ?? "config";
const t0 = performance.now();
// As the one-shot commands read it: compiled once, each route's spec let go as it compiles.
const loaded = loadConfig(dir, { once: true });
const t1 = performance.now();
const result = await compileLoaded(loaded);
const t2 = performance.now();
// Read before planning: the storage plan is not part of the compile.
const maxRssMB = process.resourceUsage().maxRSS / 1024;
const rules = result.table.rules.length;
const flag = process.argv.indexOf("--cold-host");
const coldHostFile = flag > 0 ? process.argv[flag + 1] : undefined;
if (coldHostFile) {
  const planned = planStorage(result.table, {}, result);
  if (!planned.ok) throw new Error(planned.problem);
  writeFileSync(coldHostFile, JSON.stringify(coldHostTexts(planned.plan, rules)));
}
process.stdout.write(JSON.stringify({ rules, loadMs: t1 - t0, compileMs: t2 - t1, maxRssMB }));
