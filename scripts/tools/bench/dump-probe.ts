/**
 * @module Child process of the dump benchmark: either the bare parse of a file (js-yaml's loadAll, or JSON.parse
 * for .json), or `kedge validate` of a config folder run in this process as the CLI runs it; then the time from
 * the first read to the end, and peak memory. Both sides are measured the same way, after Node has started.
 */
import { readFileSync } from "node:fs";
import jsyaml from "js-yaml";
import { runCli } from "../../cli/program";

const [mode, path] = process.argv.slice(2);
const started = performance.now();
if (mode === "bare") {
  const text = readFileSync(path!, "utf8");
  const parsed = path!.endsWith(".json") ? [JSON.parse(text)] : jsyaml.loadAll(text, null, { schema: jsyaml.CORE_SCHEMA });
  if (parsed.length === 0) throw new Error("nothing parsed");
} else {
  const code = await runCli(["validate", "--config", path!, "-o", "json"], { out: () => {}, err: () => {}, isTTY: false });
  if (code !== 0) throw new Error(`kedge validate exited ${code}`);
}
process.stdout.write(JSON.stringify({ ms: performance.now() - started, maxRssMB: process.resourceUsage().maxRSS / 1024 }));
