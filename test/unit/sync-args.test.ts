import { describe, it } from "vitest";
import { parseSyncArgs } from "../../scripts/sync/args";
import { UserError } from "../../scripts/sync/user-error";

describe("sync flags", () => {
  it("defaults to a local push of config/", ({ expect }) => {
    expect(parseSyncArgs([])).toMatchObject({ configDir: "config", target: "local", persistTo: ".wrangler/state", dryRun: false, strict: false });
  });

  it("reads values in both --flag value and --flag=value forms", ({ expect }) => {
    expect(parseSyncArgs(["--config", "c", "--persist-to=/tmp/x", "--json", "--strict"])).toMatchObject({ configDir: "c", persistTo: "/tmp/x", json: true, strict: true });
  });

  it("takes an optional version after --rollback", ({ expect }) => {
    expect(parseSyncArgs(["--rollback"]).rollback).toEqual({});
    expect(parseSyncArgs(["--rollback", "abc123"]).rollback).toEqual({ version: "abc123" });
    expect(parseSyncArgs(["--rollback", "--json"])).toMatchObject({ rollback: {}, json: true });
  });

  it.each([[["--bogus"], /unknown flag "--bogus"/], [["--config"], /--config needs a value/], [["--local", "--remote"], /cannot be combined/], [["--remote", "--persist-to", "x"], /--local only/], [["--rollback", "--dry-run"], /cannot be combined/]])(
    "refuses %j with a UserError",
    (argv, message) => {
      let error: unknown;
      try {
        parseSyncArgs(argv as string[]);
      } catch (e) {
        error = e;
      }
      if (!(error instanceof UserError) || !(message as RegExp).test(error.message)) throw new Error(`expected a UserError matching ${message}, got ${String(error)}`);
    },
  );
});
