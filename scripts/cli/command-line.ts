/**
 * @module A KedgeCommand (commands as data) as a commander command: its flags as options, its arguments,
 * help with examples and exit codes; how its options parse outside the program (a command run in-process);
 * and the CommandIO its run writes through.
 */
import { Command, Option } from "commander";
import { type CommandIO, EXIT, type Flag, type KedgeCommand } from "./command";
import { outputFormat, type OutputOptions } from "./flags";

/** Where the command line writes: stdout and stderr, or a test's buffers. */
export interface CliIO {
  out(text: string): void;
  err(text: string): void;
  /** Whether stderr is a terminal (progress lines are for a person watching). */
  isTTY?: boolean;
}

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
export function commandOf(c: KedgeCommand): Command {
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
