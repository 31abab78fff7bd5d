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

const io = { out: (t: string) => console.log(t), err: (t: string) => console.error(t), isTTY: process.stderr.isTTY };
process.exit(await runCli(process.argv.slice(2), io));
