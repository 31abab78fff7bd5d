import { describe, it } from "vitest";
import { parseSyncArgs } from "../../scripts/sync/args";
import { assertStorable } from "../../scripts/sync/run-sync";
import { UserError } from "../../scripts/sync/user-error";
import { compileYaml } from "../support/compile-fixture";
import { EDGE_YAML, infraYaml } from "../support/conformance-infra";

describe("sync flags", () => {
  it("defaults to a local push of config/", ({ expect }) => {
    expect(parseSyncArgs([])).toMatchObject({
      configDir: "config",
      target: "local",
      persistTo: ".wrangler/state",
      dryRun: false,
      strict: false,
    });
  });

  it("reads values in both --flag value and --flag=value forms", ({ expect }) => {
    expect(parseSyncArgs(["--config", "c", "--persist-to=/tmp/x", "--json", "--strict"])).toMatchObject({
      configDir: "c",
      persistTo: "/tmp/x",
      json: true,
      strict: true,
    });
  });

  it("takes an optional version after --rollback", ({ expect }) => {
    expect(parseSyncArgs(["--rollback"]).rollback).toEqual({});
    expect(parseSyncArgs(["--rollback", "abc123"]).rollback).toEqual({ version: "abc123" });
    expect(parseSyncArgs(["--rollback", "--json"])).toMatchObject({ rollback: {}, json: true });
  });

  it.for([
    [["--bogus"], /unknown flag "--bogus"/],
    [["--config"], /--config needs a value/],
    [["--local", "--remote"], /cannot be combined/],
    [["--remote", "--persist-to", "x"], /--local only/],
    [["--rollback", "--dry-run"], /cannot be combined/],
  ])("refuses %j with a UserError", ([argv, message], { expect }) => {
    expect(() => parseSyncArgs(argv as string[])).toThrow(UserError);
    expect(() => parseSyncArgs(argv as string[])).toThrow(message as RegExp);
  });
});

describe("table size", () => {
  it("refuses a table larger than one KV value, naming its size and what to do", async ({ expect }) => {
    const { table } = await compileYaml(EDGE_YAML, { c1: infraYaml({ v1: 1, v2: 2, v3: 3 }) });
    expect(() => assertStorable(table)).not.toThrow();
    expect(() => assertStorable(table, 100)).toThrow(/table test is 0\.\d MiB .*a Workers KV value holds at most 0\.0 MiB/);
  });
});
