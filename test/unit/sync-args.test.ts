import { describe, it } from "vitest";
import { parseSyncArgs } from "../../scripts/sync/args";
import { UserError } from "../../scripts/sync/user-error";

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
    [["--history", "--rollback"], /--history writes nothing/],
  ])("refuses %j with a UserError", ([argv, message], { expect }) => {
    expect(() => parseSyncArgs(argv as string[])).toThrow(UserError);
    expect(() => parseSyncArgs(argv as string[])).toThrow(message as RegExp);
  });
});

describe("--shard-size", () => {
  it.for([
    ["4MiB", 4 * 2 ** 20],
    ["512KiB", 512 * 1024],
    ["100000", 100_000],
    ["1.5 MiB", 1.5 * 2 ** 20],
  ] as const)("reads %s as %d bytes", ([text, bytes], { expect }) => {
    expect(parseSyncArgs(["--shard-size", text]).shardBytes).toBe(bytes);
  });

  it.for(["0", "12", "26MiB", "four", "4GiB"])("refuses %s with the allowed range", (text, { expect }) => {
    expect(() => parseSyncArgs([`--shard-size=${text}`])).toThrow(/is not a size from 1KiB to 25MiB/);
  });
});
