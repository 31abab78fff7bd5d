/**
 * @module The `kedge` command line: the commands of commands/ turned into a commander program (chosen
 * for its per-command help, did-you-mean for commands and flags, flag conflicts and value parsers, and
 * because it is the most used Node CLI library, so its conventions are the ones users know). Every
 * outcome is printed by render.ts; every error ends in one of the documented exit codes.
 */
import { Command, CommanderError } from "commander";
import { packageVersion } from "../lib/package-files";
import { UserError } from "../sync/user-error";
import { EXIT } from "./command";
import { type CliIO, commandIO, commandOf } from "./command-line";
import { COMMANDS } from "./commands";
import type { OutputOptions } from "./flags";
import { render } from "./render";

export { type CliIO, commandIO, parseOptions } from "./command-line";

/** Flags earlier releases took on the sync, and what replaced them. */
const REPLACED_FLAGS: Record<string, string> = {
  "--history": "kedge history (in the repository: npm run kedge -- history)",
  "--rollback": "kedge rollback [VERSION] (in the repository: npm run kedge -- rollback)",
};

export const PACKAGE_VERSION = packageVersion();

/** The program for one run: commander keeps parsed values on its objects, so each run builds its own. */
function buildProgram(io: CliIO, finished: (code: number) => void): Command {
  const program = new Command("kedge")
    .description("Kubernetes Gateway API multi-cluster load balancing at the edge, on Cloudflare Workers.")
    .version(PACKAGE_VERSION, "-v, --version", "the installed kedge version")
    .helpOption("-h, --help", "this help")
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.out(text.replace(/\n$/, "")),
      writeErr: (text) => io.err(text.replace(/\n$/, "")),
    })
    .addHelpText(
      "after",
      `\nRun \`kedge <command> --help\` for a command's flags and exit codes. Exit codes: 0 done or unchanged,\n1 refused (or for diff: would change), 2 unusable input, nothing written, ${EXIT.BUG} a bug.`,
    );
  for (const c of COMMANDS) {
    // Error handling, output and suggestions as the program's (addCommand does not copy them itself).
    const sub = commandOf(c).copyInheritedSettings(program);
    program.addCommand(sub);
    sub.action(async () => {
      const options = sub.opts<OutputOptions & Record<string, unknown>>();
      const args = sub.processedArgs.filter((a): a is string => typeof a === "string");
      const cio = commandIO(options, io);
      const outcome = await c.run(options, args, cio);
      const text = render(outcome, cio.format);
      if (text) io.out(text);
      finished(outcome.code);
    });
  }
  return program;
}

/** What a commander error exits with: 0 for help and --version, 2 for anything wrong with the command line. */
function commanderExit(error: CommanderError, io: CliIO): number {
  if (error.exitCode === 0) return EXIT.OK;
  const replaced = Object.entries(REPLACED_FLAGS).find(
    ([flag]) => error.code === "commander.unknownOption" && error.message.includes(`'${flag}'`),
  );
  if (replaced) io.err(`  fix: ${replaced[0]} is now its own command: ${replaced[1]}`);
  return EXIT.UNUSABLE_INPUT;
}

/** Runs `kedge <argv>` and returns its exit code; nothing it does ends the process. */
export async function runCli(argv: string[], io: CliIO): Promise<number> {
  let code: number = EXIT.OK;
  const program = buildProgram(io, (c) => (code = c));
  try {
    if (argv.length === 0) {
      io.err(program.helpInformation().trimEnd());
      return EXIT.UNUSABLE_INPUT;
    }
    await program.parseAsync(argv, { from: "user" });
    return code;
  } catch (error) {
    if (error instanceof CommanderError) return commanderExit(error, io);
    if (error instanceof UserError) {
      io.err(`error: ${error.message}${error.hint ? `\n  fix: ${error.hint}` : ""}`);
      return EXIT.UNUSABLE_INPUT;
    }
    io.err("kedge failed unexpectedly (this is a bug; nothing was pointed at a partial table):");
    io.err(error instanceof Error ? (error.stack ?? error.message) : String(error));
    return EXIT.BUG;
  }
}
