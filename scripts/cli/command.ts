/**
 * @module What a kedge command is, as data: its name, help, arguments, flags and exit codes, and a run
 * that returns a typed outcome. program.ts turns the list into the command line (commander) and
 * render.ts prints every outcome the same way, as text for a person or as JSON/YAML for a program.
 */

/** Exit codes, the same for every command (each documents the ones it uses). */
export const EXIT = {
  /** Done, or nothing to do. */
  OK: 0,
  /** Refused (`--strict` and the report has errors), or for `diff`: the table would change. */
  REFUSED: 1,
  /** Input that cannot be used: a flag, a file, a store, a login. Nothing was written. */
  UNUSABLE_INPUT: 2,
  /** A bug in kedge. Nothing was pointed at a partial table (the pointer moves last). */
  BUG: 3,
} as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

export type OutputFormat = "text" | "json" | "yaml";

/** One flag as data: spread shared groups into a command's list; the completion scripts read the same list. */
export interface Flag {
  /** As commander writes it: "--config <dir>", "-e, --env <name>", "--dry-run". */
  flags: string;
  description: string;
  /** Shown in help; used when the flag is not given. */
  default?: string | boolean | number;
  /** How the help names a computed default. */
  defaultText?: string;
  choices?: readonly string[];
  /** Turns the text into the value the command reads; throws a UsageError when it cannot. */
  parse?: (text: string, previous: unknown) => unknown;
  /** Long names (camelCase) of flags this one cannot be combined with. */
  conflicts?: string[];
  /** Not listed in help (kept so that old scripts get a fix instead of an unknown flag). */
  hidden?: boolean;
}

export interface Argument {
  name: string;
  description: string;
  required: boolean;
}

/** Where a command writes while it runs; what it prints at the end is its outcome's. */
export interface CommandIO {
  /** A line for a person watching (stderr); dropped when the output is JSON or YAML. */
  note(line: string): void;
  /** Progress of a long step (stderr, only on a terminal and never with JSON or YAML output). */
  readonly progress?: (line: string) => void;
  /**
   * One structured record of a long-running command (a `sync --watch` cycle), on stdout as it happens:
   * `key=value` pairs for a person, one JSON object per line for a program.
   */
  record(fields: Record<string, unknown>): void;
  readonly format: OutputFormat;
}

/** What a command found or did: `data` for -o json|yaml, `text` for a person, and the exit code. */
export interface Outcome<T = unknown> {
  code: ExitCode;
  data: T;
  text: string[];
}

export interface KedgeCommand<Options = Record<string, unknown>> {
  name: string;
  /** One line, in `kedge --help`. */
  summary: string;
  /** Paragraphs, in `kedge <name> --help`. */
  description: string;
  arguments?: Argument[];
  flags: Flag[];
  /** The codes this command exits with, and when. */
  exitCodes: Partial<Record<ExitCode, string>>;
  examples?: string[];
  run(options: Options, args: string[], io: CommandIO): Promise<Outcome>;
}

/** Declares a command with its options typed (the flags' long names, camelCased, as commander gives them). */
export const command = <Options>(c: KedgeCommand<Options>): KedgeCommand => c as unknown as KedgeCommand;
