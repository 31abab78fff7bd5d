/** @module The sync command as a function: arguments ▸ run ▸ exit code, with errors mapped as documented. */
import { parseSyncArgs, USAGE } from "./args";
import { EXIT, type Output, runSync } from "./run-sync";
import { UserError } from "./user-error";

/** Exit code 3: a bug. Nothing was pointed at a partial table (the pointer moves last). */
export const EXIT_INTERNAL = 3;

export function syncCommand(argv: string[], io: Output): Promise<number> {
  return withExitCodes(io, async () => {
    const options = parseSyncArgs(argv);
    if (options.help) {
      io.out(USAGE);
      return EXIT.OK;
    }
    return runSync(options, io);
  });
}

/** Runs a command, mapping its errors to the documented exit codes: a UserError is 2, anything else a bug (3). */
export async function withExitCodes(io: Output, command: () => Promise<number>): Promise<number> {
  try {
    return await command();
  } catch (error) {
    if (error instanceof UserError) {
      io.err(`error: ${error.message}${error.hint ? `\n  fix: ${error.hint}` : ""}`);
      return EXIT.UNUSABLE_INPUT;
    }
    io.err("kedge sync failed unexpectedly (this is a bug; nothing was pointed at a partial table):");
    io.err(error instanceof Error ? (error.stack ?? error.message) : String(error));
    return EXIT_INTERNAL;
  }
}
