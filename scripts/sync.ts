/** @module `npm run sync`: arguments ▸ run ▸ exit code. */
import { syncCommand } from "./sync/cli";

process.env.WRANGLER_SEND_METRICS ??= "false";

// Output read by a pipe that closes early (`npm run sync | head`) must not stop a sync halfway through its
// push: what is left to print is dropped, and the sync runs to its end and exit code.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code !== "EPIPE") throw error;
  });
}

syncCommand(process.argv.slice(2), { out: (t) => console.log(t), err: (t) => console.error(t) }).then((code) => process.exit(code));
