/** @module Command-line flags of `npm run sync`. An unknown or misused flag is a UserError (exit 2). */
import { DEFAULT_SHARD_BYTES, KV_VALUE_LIMIT_BYTES } from "../../src/table/kv-keys";
import { findWranglerConfig } from "../lib/wrangler-config";
import { UserError } from "./user-error";

export type SyncTarget = "local" | "remote";

export interface SyncOptions {
  configDir: string;
  target: SyncTarget;
  persistTo: string;
  dryRun: boolean;
  json: boolean;
  strict: boolean;
  /** `--history`: list the kept versions and which one is served; write nothing. */
  history?: boolean;
  /** `--rollback` alone: the previous version; `--rollback V`: that version. */
  rollback?: { version?: string };
  statusOut?: string;
  wranglerConfig: string;
  /** The wrangler environment (`[env.NAME]`) whose KV namespace and Worker the sync is for. */
  env?: string;
  /** Tables above this many bytes are stored as shards by host. */
  shardBytes: number;
  help: boolean;
}

export const USAGE = `Usage: npm run sync -- [options]

Compiles the Gateway API resources of every cluster into one route table and pushes it to Workers KV.

Options:
  --config DIR          config folder with kedge.yaml and clusters/<name>/ (default: config)
  --local               write to local state that \`npm start\` and \`wrangler dev\` read (default)
  --persist-to DIR      local state folder, like wrangler's flag (default: .wrangler/state)
  --remote              write to the KV namespace in wrangler.toml, through wrangler and your login
  --dry-run             show what would change against the current table; write nothing
  --rollback [VERSION]  point the edge back at VERSION (default: the previous version);
                        with --dry-run, show what would change and write nothing
  --history             list the kept versions (time, rules, backends, shards), the served one marked
  --strict              exit 1 and write nothing when the report has any error (a
                        resource rejected, or a rule or backendRef of one dropped)
  --json                machine-readable output
  --status-out DIR      write each object's status block as YAML under DIR
  --wrangler-config F   wrangler config file (default: wrangler.json, wrangler.jsonc or
                        wrangler.toml, the first that exists, as wrangler looks for them)
  --env NAME            the wrangler environment ([env.NAME]) to write for
  --shard-size SIZE     store tables above SIZE as shards by host, each about SIZE
                        (bytes, or with KiB/MiB; default: 1MiB, at most 25MiB)
  -h, --help            this text

Exit codes: 0 written or unchanged (warnings allowed); 1 --strict and the report has errors;
2 input that cannot be used (YAML syntax error, unknown flag), nothing written.`;

const UNITS: Record<string, number> = { "": 1, b: 1, kib: 1024, kb: 1000, mib: 2 ** 20, mb: 1e6 };

/** "4MiB", "512KiB", "100000": bytes, at least 1 KiB and at most one KV value. */
function parseSize(flag: string, text: string): number {
  const parsed = /^(\d+(?:\.\d+)?)\s*([a-z]*)$/i.exec(text.trim());
  const unit = parsed ? UNITS[parsed[2]!.toLowerCase()] : undefined;
  const bytes = parsed && unit ? Math.floor(Number(parsed[1]) * unit) : Number.NaN;
  if (!(bytes >= 1024 && bytes <= KV_VALUE_LIMIT_BYTES)) {
    throw new UserError(`${flag} ${JSON.stringify(text)} is not a size from 1KiB to 25MiB`, `for example ${flag} 4MiB`);
  }
  return bytes;
}

/** Parses argv (without node and script). */
export function parseSyncArgs(argv: string[]): SyncOptions {
  const options: SyncOptions = {
    configDir: "config",
    target: "local",
    persistTo: ".wrangler/state",
    dryRun: false,
    json: false,
    strict: false,
    wranglerConfig: findWranglerConfig(),
    shardBytes: DEFAULT_SHARD_BYTES,
    help: false,
  };
  let sawLocal = false;
  let sawRemote = false;
  let sawPersist = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? "";
    const [flag, inline] =
      arg.startsWith("--") && arg.includes("=") ? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)] : [arg, undefined];
    const value = (): string => {
      const v = inline ?? argv[++i];
      if (v === undefined || v === "" || (inline === undefined && v.startsWith("--")))
        throw new UserError(
          `${flag} needs a value`,
          USAGE.split("\n")
            .find((l) => l.includes(flag))
            ?.trim(),
        );
      return v;
    };
    switch (flag) {
      case "--config":
        options.configDir = value();
        break;
      case "--local":
        sawLocal = true;
        options.target = "local";
        break;
      case "--remote":
        sawRemote = true;
        options.target = "remote";
        break;
      case "--persist-to":
        sawPersist = true;
        options.persistTo = value();
        break;
      case "--dry-run":
        options.dryRun = true;
        break;
      case "--json":
        options.json = true;
        break;
      case "--history":
        options.history = true;
        break;
      case "--strict":
        options.strict = true;
        break;
      case "--status-out":
        options.statusOut = value();
        break;
      case "--wrangler-config":
        options.wranglerConfig = value();
        break;
      case "--env":
      case "-e":
        options.env = value();
        break;
      case "--shard-size":
        options.shardBytes = parseSize(flag, value());
        break;
      case "--rollback": {
        const next = inline ?? argv[i + 1];
        if (next !== undefined && !next.startsWith("-")) {
          if (inline === undefined) i++;
          options.rollback = { version: next };
        } else {
          options.rollback = {};
        }
        break;
      }
      case "-h":
      case "--help":
        options.help = true;
        break;
      default:
        throw new UserError(`unknown flag ${JSON.stringify(arg)}`, "run `npm run sync -- --help` for the flags");
    }
  }
  if (sawLocal && sawRemote) throw new UserError("--local and --remote cannot be combined", "choose where to write");
  if (sawRemote && sawPersist) throw new UserError("--persist-to applies to --local only", "drop --persist-to, or use --local");
  if (options.history && (options.rollback || options.dryRun))
    throw new UserError("--history writes nothing and takes no --rollback or --dry-run");
  return options;
}
