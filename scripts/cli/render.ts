/** @module The one printer of command outcomes: text for a person, or the outcome's data as JSON or YAML for a program. */
import { stringify } from "yaml";
import type { Outcome, OutputFormat } from "./command";

export function render(outcome: Outcome, format: OutputFormat): string {
  switch (format) {
    case "json":
      return JSON.stringify(outcome.data, null, 2);
    case "yaml":
      return stringify(outcome.data, { lineWidth: 0 }).trimEnd();
    case "text":
      return outcome.text.join("\n");
  }
}
