/** @module `npm run sync`: arguments ▸ run ▸ exit code. */
import { parseSyncArgs, USAGE } from "./sync/args";
import { EXIT, runSync } from "./sync/run-sync";
import { UserError } from "./sync/user-error";

process.env.WRANGLER_SEND_METRICS ??= "false";

async function main(argv: string[]): Promise<number> {
  const io = { out: (t: string) => console.log(t), err: (t: string) => console.error(t) };
  try {
    const options = parseSyncArgs(argv);
    if (options.help) {
      io.out(USAGE);
      return EXIT.OK;
    }
    return await runSync(options, io);
  } catch (error) {
    if (error instanceof UserError) {
      io.err(`error: ${error.message}${error.hint ? `\n  fix: ${error.hint}` : ""}`);
      return EXIT.UNUSABLE_INPUT;
    }
    io.err("kedge sync failed unexpectedly (this is a bug; nothing was pointed at a partial table):");
    io.err(error instanceof Error ? (error.stack ?? error.message) : String(error));
    return 3;
  }
}

main(process.argv.slice(2)).then((code) => process.exit(code));
