/**
 * @module The project's `.dev.vars` as `kedge dev` reads it: the local secrets, and which of them still
 * hold the placeholders `kedge init` wrote into `.dev.vars.example` (copied as they are, they seal
 * sessions with a key anyone can read in the package).
 */
import { existsSync, readFileSync } from "node:fs";

/** How the values of `kedge init`'s .dev.vars.example begin (scripts/cli/templates/dev.vars.example). */
const PLACEHOLDER_PREFIX = "replace-with-";

/** `NAME=value` lines of a .dev.vars file (as wrangler reads it: # comments, optional quotes). */
export function readDevVars(file: string): Record<string, string> {
  if (!existsSync(file)) return {};
  const vars: Record<string, string> = {};
  for (const line of readFileSync(file, "utf8").split(/\r?\n/)) {
    const match = /^\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*?)\s*$/.exec(line);
    if (!match || line.trimStart().startsWith("#")) continue;
    vars[match[1]!] = match[2]!.replace(/^(["'])(.*)\1$/, "$2");
  }
  return vars;
}

/**
 * The names in `vars` whose value is still a placeholder: `replace-with-…`, or the value the project's
 * `.dev.vars.example` (`example`) gives that name.
 */
export function placeholderSecrets(vars: Record<string, string>, example: string): string[] {
  const examples = readDevVars(example);
  return Object.entries(vars)
    .filter(([name, value]) => value.startsWith(PLACEHOLDER_PREFIX) || (value !== "" && examples[name] === value))
    .map(([name]) => name);
}
