/**
 * @module `kedge completion bash|zsh|fish`: a shell completion script made from the commands' own
 * declarations (their names, summaries and flags), so it never lists a flag a command does not take.
 */
import { UserError } from "../../lib/user-error";
import { command, EXIT, type KedgeCommand } from "../command";

const SHELLS = ["bash", "zsh", "fish"] as const;
type Shell = (typeof SHELLS)[number];

/** A command's long and short flag names (`--config`, `-e`), hidden ones left out. */
const flagNames = (c: KedgeCommand): string[] =>
  c.flags
    .filter((f) => !f.hidden)
    .flatMap((f) => f.flags.split(/[ ,]+/).filter((part) => part.startsWith("-")))
    .concat("--help");

function bash(commands: readonly KedgeCommand[]): string {
  const cases = commands.map((c) => `    ${c.name}) COMPREPLY=( $(compgen -W "${flagNames(c).join(" ")}" -- "$cur") ) ;;`).join("\n");
  return `# kedge completion for bash: source <(kedge completion bash)
_kedge() {
  local cur="\${COMP_WORDS[COMP_CWORD]}"
  if [ "$COMP_CWORD" -eq 1 ]; then
    COMPREPLY=( $(compgen -W "${commands.map((c) => c.name).join(" ")} help --help --version" -- "$cur") )
    return
  fi
  case "\${COMP_WORDS[1]}" in
${cases}
  esac
}
complete -o default -F _kedge kedge
`;
}

const fishQuote = (text: string) => `'${text.replaceAll("\\", "\\\\").replaceAll("'", "\\'")}'`;

function fish(commands: readonly KedgeCommand[]): string {
  const lines = ["# kedge completion for fish: kedge completion fish | source", "complete -c kedge -f"];
  for (const c of commands) {
    lines.push(`complete -c kedge -n __fish_use_subcommand -a ${c.name} -d ${fishQuote(c.summary)}`);
    for (const f of c.flags.filter((flag) => !flag.hidden)) {
      const long = /--([a-z0-9-]+)/.exec(f.flags)?.[1];
      const short = /(?:^|[ ,])-([a-zA-Z])\b/.exec(f.flags)?.[1];
      const takesValue = f.flags.includes("<");
      lines.push(
        `complete -c kedge -n '__fish_seen_subcommand_from ${c.name}'${long ? ` -l ${long}` : ""}${short ? ` -s ${short}` : ""}${takesValue ? " -r" : ""}${f.choices ? ` -a ${fishQuote(f.choices.join(" "))}` : ""} -d ${fishQuote(f.description.slice(0, 80))}`,
      );
    }
  }
  return `${lines.join("\n")}\n`;
}

export function completionScript(shell: Shell, commands: readonly KedgeCommand[]): string {
  switch (shell) {
    case "bash":
      return bash(commands);
    case "zsh":
      // zsh runs bash completions through bashcompinit.
      return `# kedge completion for zsh: source <(kedge completion zsh)\nautoload -U +X bashcompinit && bashcompinit\n${bash(commands).split("\n").slice(1).join("\n")}`;
    case "fish":
      return fish(commands);
  }
}

export const completionCommand = command<Record<string, never>>({
  name: "completion",
  summary: "print a shell completion script (bash, zsh or fish)",
  description:
    "Prints a completion script for SHELL, made from the commands and flags this kedge has. bash: `source <(kedge completion bash)`; zsh: `source <(kedge completion zsh)`; fish: `kedge completion fish | source`.",
  arguments: [{ name: "shell", description: "bash, zsh or fish", required: true }],
  flags: [],
  exitCodes: { 0: "printed", 2: "a shell it has no script for" },
  examples: ["source <(kedge completion bash)", "kedge completion fish > ~/.config/fish/completions/kedge.fish"],
  async run(_options, [shell]) {
    if (!SHELLS.includes(shell as Shell))
      throw new UserError(`no completion script for ${JSON.stringify(shell)}`, `one of: ${SHELLS.join(", ")}`);
    // Imported here: the list of commands includes this one.
    const { COMMANDS } = await import("./index");
    return {
      code: EXIT.OK,
      data: { shell, script: completionScript(shell as Shell, COMMANDS) },
      text: [completionScript(shell as Shell, COMMANDS).trimEnd()],
    };
  },
});
