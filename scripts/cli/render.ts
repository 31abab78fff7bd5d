/** @module The one printer of command outcomes: text for a person, or the outcome's data as JSON or YAML for a program. */
import { stringify } from "yaml";
import type { ExitCode, Outcome, OutputFormat } from "./command";

/** What went wrong when a command could not give its outcome (exit 2 or 3), and how to fix it. */
export interface CommandError {
  message: string;
  fix?: string;
}

export function render(outcome: Outcome, format: OutputFormat): string {
  switch (format) {
    case "json":
      return JSON.stringify(outcome.data, null, 2);
    case "yaml":
      // No anchors: a value the report shares between objects is written out at each place, as kubectl writes it.
      return stringify(outcome.data, { lineWidth: 0, aliasDuplicateObjects: false }).trimEnd();
    case "text":
      return outcome.text.join("\n");
  }
}

/**
 * A command that failed, for a program: `{ error: { message, fix }, exitCode }` as JSON or YAML on stdout
 * (the text for a person goes to stderr); nothing for text output.
 */
export function renderError(error: CommandError, exitCode: ExitCode, format: OutputFormat): string {
  return format === "text" ? "" : render({ code: exitCode, data: { error, exitCode }, text: [] }, format);
}
