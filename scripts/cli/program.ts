/**
 * @module The `kedge` command line: the commands of commands/ turned into a commander program (chosen
 * for its per-command help, did-you-mean for commands and flags, flag conflicts and value parsers, and
 * because it is the most used Node CLI library, so its conventions are the ones users know). Every
 * outcome is printed by render.ts; every error ends in one of the documented exit codes.
 */
import { Command, CommanderError } from "commander";
import { packageVersion } from "../lib/package-files";
import { UserError } from "../lib/user-error";
import { EXIT, type ExitCode, type OutputFormat } from "./command";
import { type CliIO, commandIO, commandOf } from "./command-line";
import { COMMANDS } from "./commands";
import { OUTPUT_FLAGS, type OutputOptions } from "./flags";
import { type CommandError, render, renderError } from "./render";
import { projectDefaults } from "../config/find-config";

export { type CliIO, commandIO, parseOptions } from "./command-line";

/** Flags earlier releases took on the sync, and what replaced them. */
const REPLACED_FLAGS: Record<string, string> = {
  "--history": "kedge history (in the repository: npm run kedge -- history)",
  "--rollback": "kedge rollback [VERSION] (in the repository: npm run kedge -- rollback)",
};

export const PACKAGE_VERSION = packageVersion();

/**
 * The output format `argv` asks for, read from the words themselves: a flag value commander refuses
 * (`--port abc`) stops its parse before later flags are read, and that error is printed in the format too.
 * As commander reads them: `--json` wins, else the last `-o`/`--output`; only for a command that takes them.
 */
function requestedFormat(argv: string[]): OutputFormat {
  const c = COMMANDS.find((c) => c.name === argv[0]);
  if (!c?.flags.some((f) => OUTPUT_FLAGS.includes(f))) return "text";
  let format: OutputFormat = "text";
  for (let i = 1; i < argv.length && argv[i] !== "--"; i++) {
    const word = argv[i] ?? "";
    if (word === "--json") return "json";
    const value = word === "-o" || word === "--output" ? argv[++i] : /^(?:-o|--output=)(.+)$/.exec(word)?.[1];
    if (value === "text" || value === "json" || value === "yaml") format = value;
  }
  return format;
}

/**
 * A command's `--config`, when not given, found from where kedge runs (config/find-config.ts): the current
 * folder when it holds kedge.yaml, else config/; with it, the project folder's wrangler config and state when
 * that folder is the one above. Said on stderr when it is not the default.
 */
function applyProjectDefaults(sub: Command, options: Record<string, unknown>, note: (line: string) => void): void {
  if (sub.getOptionValueSource("config") !== "default") return;
  const found = projectDefaults();
  options.config = found.config;
  const takes = (name: string) => sub.options.some((o) => o.attributeName() === name);
  if (found.wranglerConfig && takes("wranglerConfig") && sub.getOptionValueSource("wranglerConfig") === undefined)
    options.wranglerConfig = found.wranglerConfig;
  if (found.persistTo && takes("persistTo") && sub.getOptionValueSource("persistTo") === "default") options.persistTo = found.persistTo;
  for (const line of found.notes) note(line);
}

/** What a run's command reports back: its exit code, and the output format it was given. */
interface RunState {
  code: number;
  format: OutputFormat;
}

/** The program for one run: commander keeps parsed values on its objects, so each run builds its own. */
function buildProgram(io: CliIO, state: RunState): Command {
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
      // A variadic argument (`[versions...]`) comes as one array.
      const args = (sub.processedArgs as unknown[]).flat().filter((a): a is string => typeof a === "string");
      const cio = commandIO(options, io);
      state.format = cio.format;
      applyProjectDefaults(sub, options, cio.note);
      const outcome = await c.run(options, args, cio);
      const text = render(outcome, cio.format);
      if (text) io.out(text);
      state.code = outcome.code;
    });
  }
  return program;
}

/** The command that replaced a flag earlier releases took, when `error` refuses that flag. */
function replacedFlagFix(error: CommanderError): string | undefined {
  const replaced = Object.entries(REPLACED_FLAGS).find(
    ([flag]) => error.code === "commander.unknownOption" && error.message.includes(`'${flag}'`),
  );
  return replaced ? `${replaced[0]} is now its own command: ${replaced[1]}` : undefined;
}

/** A commander error as a command error: its message, and a fix (a flag that became a command, or commander's did-you-mean). */
function commanderError(error: CommanderError): CommandError {
  const [message = error.message, suggestion] = error.message.replace(/^error: /, "").split(/\n\(Did you mean (.+)\?\)$/);
  const fix =
    replacedFlagFix(error) ??
    (suggestion ? `did you mean ${suggestion}?` : "kedge --help lists the commands; kedge <command> --help a command's flags");
  return { message, fix };
}

/**
 * `kedge help <command>` for a command that does not exist: commander prints the general help, so this
 * refuses it as `kedge <command>` is refused, naming it with a did-you-mean.
 */
const unknownHelpTopic = (argv: string[]): string | undefined =>
  argv[0] === "help" && argv[1] !== undefined && !argv[1].startsWith("-") && argv[1] !== "help" && !COMMANDS.some((c) => c.name === argv[1])
    ? argv[1]
    : undefined;

/**
 * Runs `kedge <argv>` and returns its exit code; nothing it does ends the process. An error is printed to
 * stderr for a person and, when the command was asked for JSON or YAML, as `{ error: { message, fix }, exitCode }`
 * on stdout too, so that a program reading the output always gets the outcome.
 */
export async function runCli(argv: string[], io: CliIO): Promise<number> {
  const state: RunState = { code: EXIT.OK, format: requestedFormat(argv) };
  const program = buildProgram(io, state);
  const failed = (exitCode: ExitCode, error: CommandError): ExitCode => {
    const text = renderError(error, exitCode, state.format);
    if (text) io.out(text);
    return exitCode;
  };
  try {
    if (argv.length === 0) {
      io.err(program.helpInformation().trimEnd());
      return EXIT.UNUSABLE_INPUT;
    }
    const topic = unknownHelpTopic(argv);
    // Parsed as the command itself, commander refuses it with its did-you-mean.
    await program.parseAsync(topic === undefined ? argv : [topic], { from: "user" });
    return state.code;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.exitCode === 0) return EXIT.OK;
      // commander printed its message (with its did-you-mean); a flag that became a command gets its fix.
      const replaced = replacedFlagFix(error);
      if (replaced) io.err(`  fix: ${replaced}`);
      return failed(EXIT.UNUSABLE_INPUT, commanderError(error));
    }
    if (error instanceof UserError) {
      io.err(`error: ${error.message}${error.hint ? `\n  fix: ${error.hint}` : ""}`);
      return failed(EXIT.UNUSABLE_INPUT, { message: error.message, ...(error.hint ? { fix: error.hint } : {}) });
    }
    io.err("kedge failed unexpectedly (this is a bug; nothing was pointed at a partial table):");
    io.err(error instanceof Error ? (error.stack ?? error.message) : String(error));
    return failed(EXIT.BUG, {
      message: error instanceof Error ? error.message : String(error),
      fix: "this is a bug in kedge: please report it with the output on stderr",
    });
  }
}
