/**
 * @module Child process of the sync benchmark: `kedge sync --config DIR --persist-to STATE` (a push to local
 * state, Miniflare's host process and all) as the CLI runs it, then the process's peak memory. The parent times
 * the process from its start to its exit. Without arguments it does nothing (a run that only builds its bundle).
 */
import { runCli } from "../../cli/program";

const [dir, state] = process.argv.slice(2);
if (dir === undefined || state === undefined) process.exit(0);
const told: string[] = [];
const io = { out: (t: string) => void told.push(t), err: (t: string) => void told.push(t), isTTY: false };
const code = await runCli(["sync", "--config", dir, "--persist-to", state], io);
if (code !== 0) {
  process.stderr.write(`${told.join("\n")}\n`);
  process.exit(code);
}
process.stdout.write(JSON.stringify({ maxRssMB: process.resourceUsage().maxRSS / 1024 }));
process.exit(0);
