/** @module The `kedge` command (the package's bin, and `npm run kedge --` in the repository): argv ▸ runCli ▸ exit code. */
import { runCli } from "./program";

process.env.WRANGLER_SEND_METRICS ??= "false";

// Output read by a pipe that closes early (`kedge sync | head`) must not stop a sync halfway through its
// push: what is left to print is dropped, and the sync runs to its end and exit code.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code !== "EPIPE") throw error;
  });
}

/**
 * Resolves once everything written to `stream` so far has left the process. A pipe takes writes
 * asynchronously: exiting before they drain cuts what a reader gets (`kedge ... -o json | jq` got 64 KiB).
 */
const drained = (stream: NodeJS.WriteStream): Promise<void> =>
  new Promise((resolve) => {
    if (stream.destroyed || !stream.writable) return resolve();
    stream.write("", () => resolve());
  });

const io = { out: (t: string) => console.log(t), err: (t: string) => console.error(t), isTTY: process.stderr.isTTY };
const code = await runCli(process.argv.slice(2), io);
await Promise.all([drained(process.stdout), drained(process.stderr)]);
process.exit(code);
