/** The command line's parsing, help and exit codes, in-process (the commands' work is tested end to end). */
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { type SyncOptions, syncCommand } from "../../scripts/cli/commands/sync";
import { PACKAGE_VERSION, parseOptions, runCli } from "../../scripts/cli/program";
import { COMMANDS } from "../../scripts/cli/commands";
import { UserError } from "../../scripts/lib/user-error";

async function kedge(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, { out: (t) => out.push(t), err: (t) => err.push(t) });
  return { code, out: out.join("\n"), err: err.join("\n") };
}

describe("sync flags", () => {
  const parse = (...argv: string[]) => parseOptions<SyncOptions>(syncCommand, argv);

  it("defaults to a local push of config/", ({ expect }) => {
    expect(parse()).toMatchObject({ config: "config", persistTo: ".wrangler/state", output: "text", shardSize: 2 ** 20 });
    expect(parse().remote).toBeUndefined();
  });

  it("reads values in both --flag value and --flag=value forms", ({ expect }) => {
    expect(parse("--config", "c", "--persist-to=/tmp/x", "--json", "--strict", "-e", "eu")).toMatchObject({
      config: "c",
      persistTo: "/tmp/x",
      json: true,
      strict: true,
      env: "eu",
    });
  });

  it.for([
    ["4MiB", 4 * 2 ** 20],
    ["512KiB", 512 * 1024],
    ["100000", 100_000],
    ["1.5 MiB", 1.5 * 2 ** 20],
  ] as const)("reads --shard-size %s as %d bytes", ([text, bytes], { expect }) => {
    expect(parse("--shard-size", text).shardSize).toBe(bytes);
  });

  it.for(["0", "12", "26MiB", "four", "4GiB"])("refuses --shard-size %s with the allowed range", (text, { expect }) => {
    expect(() => parse(`--shard-size=${text}`)).toThrow(UserError);
    expect(() => parse(`--shard-size=${text}`)).toThrow(/is not a size from 1KiB to 25MiB/);
  });
});

describe("the kedge command line", () => {
  it.for([
    [["sync", "--bogus"], /unknown option '--bogus'/],
    [["sync", "--strikt"], /unknown option '--strikt'\n\(Did you mean --strict\?\)/],
    [["synk"], /unknown command 'synk'\n\(Did you mean sync\?\)/],
    [["help", "synk"], /unknown command 'synk'\n\(Did you mean sync\?\)/],
    [["status", "--strict"], /unknown option '--strict'/],
    [["sync", "--config"], /option '--config <dir>' argument missing/],
    [["sync", "--local", "--remote"], /option '--remote' cannot be used with option '--local'/],
    [["sync", "--remote", "--persist-to", "x"], /option '--persist-to <dir>' cannot be used with option '--remote'/],
    [["history", "-o", "xml"], /argument 'xml' is invalid. Allowed choices are text, json, yaml/],
    [["rollback", "a", "b"], /too many arguments for 'rollback'/],
    [["explain", "--host", "x", "--port", "abc"], /--port "abc" is not a port from 1 to 65535\n {2}fix: for example --port 8080/],
    [["explain", "--host", "x", "--port", "70000"], /is not a port from 1 to 65535/],
    [["explain", "--host", "x", "--header", "no separator"], /--header "no separator" is not a header\n {2}fix: write it as curl does/],
    [["explain", "--host", "x", "--method", "GE T"], /--method "GE T" is not an HTTP method\n {2}fix: for example --method POST/],
    [["sync", "--rollback"], /unknown option '--rollback'\n {2}fix: --rollback is now its own command: kedge rollback/],
  ])("refuses %j with exit 2 and says why", async ([argv, message], { expect }) => {
    const run = await kedge(...(argv as string[]));
    expect(run.err).toMatch(message as RegExp);
    expect(run.code).toBe(2);
    expect(run.out).toBe("");
  });

  it("gives every command its own help, with its flags and exit codes, exit 0", async ({ expect }) => {
    for (const c of COMMANDS) {
      for (const help of [
        [c.name, "--help"],
        ["help", c.name],
      ]) {
        const run = await kedge(...help);
        expect(run.code, help.join(" ")).toBe(0);
        expect(run.out).toContain(`Usage: kedge ${c.name} [options]`);
        expect(run.out).toContain(c.description.slice(0, 40));
        expect(run.out).toMatch(/Exit codes:\n {2}0 {2}/);
        for (const flag of c.flags.filter((f) => !f.hidden)) expect(run.out).toContain(flag.flags.split(" ")[0]);
      }
    }
  });

  it("lists the commands, says the version, and wants a command", async ({ expect }) => {
    const help = await kedge("--help");
    expect(help.code).toBe(0);
    for (const c of COMMANDS) expect(help.out).toMatch(new RegExp(`\\n {2}${c.name} `));
    const version = await kedge("--version");
    expect([version.code, version.out]).toEqual([0, PACKAGE_VERSION]);
    expect(PACKAGE_VERSION).toMatch(/^\d+\.\d+\.\d+/);
    const bare = await kedge();
    expect(bare.code).toBe(2);
    expect(bare.err).toContain("Usage: kedge [options] [command]");
  });
});

describe("errors with -o json or -o yaml", () => {
  it.for([
    [
      ["explain", "--host", "x", "--port", "abc", "-o", "json"],
      { message: '--port "abc" is not a port from 1 to 65535', fix: "for example --port 8080" },
    ],
    [
      ["explain", "--json", "--host", "x", "--method", "GE T"],
      { message: '--method "GE T" is not an HTTP method', fix: "for example --method POST (one word, no spaces)" },
    ],
    [["sync", "--strikt", "--output=json"], { message: "unknown option '--strikt'", fix: "did you mean --strict?" }],
    [
      ["sync", "--json", "--rollback"],
      {
        message: "unknown option '--rollback'",
        fix: "--rollback is now its own command: kedge rollback [VERSION] (in the repository: npm run kedge -- rollback)",
      },
    ],
  ])("%j prints the error as JSON on stdout and as text on stderr, exit 2", async ([argv, error], { expect }) => {
    const run = await kedge(...(argv as string[]));
    expect(run.code).toBe(2);
    expect(JSON.parse(run.out)).toEqual({ error, exitCode: 2 });
    expect(run.err).toContain((error as { message: string }).message);
  });

  it("prints it as YAML for -o yaml, whichever side of the bad flag it is on", async ({ expect }) => {
    for (const argv of [
      ["explain", "-o", "yaml", "--host", "x", "--port", "abc"],
      ["explain", "--host", "x", "--port", "abc", "-oyaml"],
    ]) {
      const run = await kedge(...argv);
      expect(run.code).toBe(2);
      expect(parseYaml(run.out)).toEqual({
        error: { message: '--port "abc" is not a port from 1 to 65535', fix: "for example --port 8080" },
        exitCode: 2,
      });
    }
  });

  it("kedge validate -o json on a broken kedge.yaml names the problem and a docs page that exists", async ({ expect }) => {
    const config = mkdtempSync(join(tmpdir(), "kedge-cli-"));
    writeFileSync(
      join(config, "kedge.yaml"),
      "apiVersion: kedge.dev/v1alpha1\nkind: EdgeConfig\nmetadata: { name: x }\nspec: { gatewayClassName: kedge, clusters: [{ name: c1, bogus: 1 }] }\n",
    );
    const run = await kedge("validate", "--config", config, "-o", "json");
    expect(run.code).toBe(2);
    const printed = JSON.parse(run.out) as { error: { message: string; fix: string }; exitCode: number };
    expect(printed.exitCode).toBe(2);
    expect(printed.error.message).toContain("spec.clusters[0].bogus: unknown field");
    const page = /^fix the edge settings file \((.+)\)$/.exec(printed.error.fix)?.[1];
    expect(page).toMatch(/docs\/configuration\.md$/);
    expect(existsSync(page!)).toBe(true);
    expect(run.err).toContain("spec.clusters[0].bogus: unknown field");
  });

  it("prints nothing on stdout for text output, and nothing extra for a command without -o", async ({ expect }) => {
    expect((await kedge("explain", "--host", "x", "--port", "abc")).out).toBe("");
    const init = await kedge("init", "-o", "json");
    expect([init.code, init.out]).toEqual([2, ""]);
  });
});

describe("kedge diff --help", () => {
  it("words --allow-invalid for a command that pushes nothing", async ({ expect }) => {
    const help = (await kedge("diff", "--help")).out;
    const line = help.split("\n").find((l) => l.trimStart().startsWith("--allow-invalid"));
    expect(line).toBeDefined();
    expect(line).not.toMatch(/push even/);
    expect(help).toContain("preview `kedge sync --allow-invalid`");
  });
});
