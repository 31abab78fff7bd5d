/**
 * @module `kedge <command> [options]`: the installed CLI (scripts/kedge.mjs, the package's bin, runs it as a bundle). Each command
 * is the sync with a fixed intent, so there is one parser, one set of flags and one table of exit codes.
 */
import { syncCommand, withExitCodes } from "./sync/cli";
import { explainCommand } from "./sync/explain-command";
import { statusCommand } from "./sync/status-command";

process.env.WRANGLER_SEND_METRICS ??= "false";

const COMMANDS: Record<string, { flags: string[]; about: string }> = {
  sync: { flags: [], about: "compile the clusters' resources and push the table (--local or --remote)" },
  diff: { flags: ["--dry-run"], about: "what a sync would change against the table the edge serves; writes nothing" },
  rollback: {
    flags: ["--rollback"],
    about: "point the edge back at a kept version (VERSION, default the previous); --dry-run shows the change",
  },
  history: { flags: ["--history"], about: "the kept versions, with time, rules, backends and shards; the served one marked" },
  explain: { flags: [], about: "where a request goes and why: rule, candidates it beat, backends, endpoints, filters" },
  status: { flags: [], about: "what the edge serves: table version and age, endpoints per cluster, active health" },
};

const USAGE = `Usage: kedge <command> [options]

Commands:
${Object.entries(COMMANDS)
  .map(([name, c]) => `  ${name.padEnd(10)}${c.about}`)
  .join("\n")}

Run \`kedge <command> --help\` for the options (they are the same for every command). Exit codes: 0 done
or unchanged, 1 refused (--strict and the report has errors), 2 unusable input, 3 a bug.`;

for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code !== "EPIPE") throw error;
  });
}

const [command, ...rest] = process.argv.slice(2);
const io = { out: (t: string) => console.log(t), err: (t: string) => console.error(t) };
if (command === undefined || command === "help" || command === "--help" || command === "-h") {
  console.log(USAGE);
  process.exit(command === undefined ? 2 : 0);
}
const known = COMMANDS[command];
if (!known) {
  console.error(`error: unknown command ${JSON.stringify(command)}\n\n${USAGE}`);
  process.exit(2);
}
// `kedge rollback [VERSION] [options]`: the version, when given, comes first and follows the flag.
const own: Record<string, (argv: string[], out: typeof io) => Promise<number>> = { explain: explainCommand, status: statusCommand };
const run = own[command];
if (run) withExitCodes(io, () => run(rest, io)).then((code) => process.exit(code));
const version = command === "rollback" && rest[0] !== undefined && !rest[0].startsWith("-") ? [rest.shift()!] : [];
if (!run) syncCommand([...known.flags, ...version, ...rest], io).then((code) => process.exit(code));
