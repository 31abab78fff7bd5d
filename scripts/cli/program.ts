/**
 * @module The `kedge` command line: the commands of commands/ turned into a commander program (chosen
 * for its per-command help, did-you-mean for commands and flags, flag conflicts and value parsers, and
 * because it is the most used Node CLI library, so its conventions are the ones users know). Every
 * outcome is printed by render.ts; every error ends in one of the documented exit codes.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Command, CommanderError, Option } from "commander";
import { UserError } from "../sync/user-error";
import { type CommandIO, EXIT, type Flag, type KedgeCommand } from "./command";
import { COMMANDS } from "./commands";
import { outputFormat, type OutputOptions } from "./flags";
import { render } from "./render";

/** Where the command line writes: stdout and stderr, or a test's buffers. */
export interface CliIO {
  out(text: string): void;
  err(text: string): void;
  /** Whether stderr is a terminal (progress lines are for a person watching). */
  isTTY?: boolean;
}

/** Flags earlier releases took on the sync, and what replaced them. */
const REPLACED_FLAGS: Record<string, string> = {
  "--history": "kedge history (in the repository: npm run kedge -- history)",
  "--rollback": "kedge rollback [VERSION] (in the repository: npm run kedge -- rollback)",
};

export const PACKAGE_VERSION = (
  JSON.parse(readFileSync(join(import.meta.dirname, "..", "..", "package.json"), "utf8")) as { version: string }
).version;

function toOption(flag: Flag): Option {
  // A default computed at run time (none here) is still named in help.
  const described =
    flag.default === undefined && flag.defaultText ? `${flag.description} (default: ${flag.defaultText})` : flag.description;
  const option = new Option(flag.flags, described);
  if (flag.default !== undefined) option.default(flag.default, flag.defaultText);
  if (flag.choices) option.choices(flag.choices);
  if (flag.parse) option.argParser(flag.parse);
  if (flag.conflicts) option.conflicts(flag.conflicts);
  if (flag.hidden) option.hideHelp();
  return option;
}

function exitCodesText(c: KedgeCommand): string {
  const codes = Object.entries(c.exitCodes).map(([code, when]) => `  ${code}  ${when}`);
  codes.push(`  ${EXIT.BUG}  a bug in kedge (please report it with the output)`);
  const examples = c.examples?.length ? `\nExamples:\n${c.examples.map((e) => `  ${e}`).join("\n")}\n` : "";
  return `${examples}\nExit codes:\n${codes.join("\n")}`;
}

/** `key=value` pairs, values quoted when they hold spaces or quotes (logfmt). */
export function logfmt(fields: Record<string, unknown>): string {
  return Object.entries(fields)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => {
      const text = typeof v === "string" ? v : JSON.stringify(v);
      return `${k}=${/[\s"=]/.test(text) || text === "" ? JSON.stringify(text) : text}`;
    })
    .join(" ");
}

/** What a command writes to, for `options`' output format, on `io`. */
export function commandIO(options: OutputOptions, io: CliIO): CommandIO {
  const format = outputFormat(options);
  const forPerson = format === "text";
  return {
    format,
    record: (fields) => io.out(forPerson ? logfmt(fields) : JSON.stringify(fields)),
    note: (line) => {
      if (forPerson) io.err(line);
    },
    ...(forPerson && io.isTTY ? { progress: (line: string) => io.err(line) } : {}),
  };
}

/** A commander command with the flags and arguments of `c`. */
function commandOf(c: KedgeCommand): Command {
  const sub = new Command(c.name).summary(c.summary).description(c.description).helpOption("-h, --help", "this help");
  for (const a of c.arguments ?? []) sub.argument(a.required ? `<${a.name}>` : `[${a.name}]`, a.description);
  for (const flag of c.flags) sub.addOption(toOption(flag));
  return sub.addHelpText("after", exitCodesText(c));
}

/**
 * A command's options as its run receives them, parsed from `argv` by the same rules as the command line
 * (for code that runs a command in-process, e.g. `npm start` running the sync on what it compiled).
 */
export function parseOptions<Options>(c: KedgeCommand, argv: string[]): Options {
  const sub = commandOf(c).exitOverride();
  sub.parse(argv, { from: "user" });
  return sub.opts<Options & object>();
}

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
