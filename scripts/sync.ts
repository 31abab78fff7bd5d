/** @module `npm run sync`: arguments ▸ run ▸ exit code. */
import { syncCommand } from "./sync/cli";

process.env.WRANGLER_SEND_METRICS ??= "false";

syncCommand(process.argv.slice(2), { out: (t) => console.log(t), err: (t) => console.error(t) }).then((code) => process.exit(code));
