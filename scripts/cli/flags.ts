/**
 * @module Flag groups more than one command takes (spread into each command's list) and the parsers of
 * flag values. A value that cannot be used is a UserError: exit 2, with the flag and a fix.
 */
import { parseDuration } from "../../src/gateway-api/duration";
import { DEFAULT_SHARD_BYTES, KV_VALUE_LIMIT_BYTES } from "../../src/table/kv-keys";
import { findWranglerConfig } from "../config/wrangler-config";
import type { StoreTarget } from "../store/open-store";
import { UserError } from "../lib/user-error";
import type { Flag, OutputFormat } from "./command";

/** Which edge a command reads or writes: the config folder, and local state or the remote KV namespace. */
export interface TargetOptions {
  config: string;
  local?: boolean;
  remote?: boolean;
  persistTo: string;
  wranglerConfig: string;
  env?: string;
}

export const TARGET_FLAGS: Flag[] = [
  { flags: "--config <dir>", description: "config folder with kedge.yaml and clusters/<name>/", default: "config" },
  { flags: "--local", description: "the local state that `kedge dev`, `npm start` and `wrangler dev` read (the default)" },
  { flags: "--remote", description: "the KV namespace of the wrangler config, through wrangler and your login", conflicts: ["local"] },
  { flags: "--persist-to <dir>", description: "local state folder, as wrangler's flag", default: ".wrangler/state", conflicts: ["remote"] },
  {
    flags: "--wrangler-config <file>",
    description: "wrangler config file",
    defaultText: "wrangler.json, wrangler.jsonc or wrangler.toml, the first that exists",
  },
  { flags: "-e, --env <name>", description: "the wrangler environment ([env.NAME]) whose KV namespace and Worker to use" },
];

/** The wrangler config a command uses: the flag's, else the first of wrangler's names that exists (as wrangler looks). */
export const wranglerConfigOf = (options: TargetOptions): string => options.wranglerConfig ?? findWranglerConfig();

export interface OutputOptions {
  output: OutputFormat;
  json?: boolean;
}

export const OUTPUT_FLAGS: Flag[] = [
  {
    flags: "-o, --output <format>",
    description: "text for a person, json or yaml for a program",
    default: "text",
    choices: ["text", "json", "yaml"],
  },
  { flags: "--json", description: "the same as -o json" },
];

/** Commands that print a compile report: its notes (info diagnostics) too, on request. */
export const VERBOSE_FLAG: Flag = { flags: "--verbose", description: "also show the report's notes (info diagnostics) in text output" };

/** The output a command's flags ask for; text for a command without output flags. */
export const outputFormat = (options: Partial<OutputOptions>): OutputFormat => (options.json ? "json" : (options.output ?? "text"));

const UNITS: Record<string, number> = { "": 1, b: 1, kib: 1024, kb: 1000, mib: 2 ** 20, mb: 1e6 };

/** "4MiB", "512KiB", "100000": bytes, at least 1 KiB and at most one KV value. */
export function parseSize(text: string, flag = "--shard-size"): number {
  const parsed = /^(\d+(?:\.\d+)?)\s*([a-z]*)$/i.exec(text.trim());
  const unit = parsed ? UNITS[parsed[2]!.toLowerCase()] : undefined;
  const bytes = parsed && unit ? Math.floor(Number(parsed[1]) * unit) : Number.NaN;
  if (!(bytes >= 1024 && bytes <= KV_VALUE_LIMIT_BYTES)) {
    throw new UserError(`${flag} ${JSON.stringify(text)} is not a size from 1KiB to 25MiB`, `for example ${flag} 4MiB`);
  }
  return bytes;
}

export const SHARD_SIZE_FLAG: Flag = {
  flags: "--shard-size <size>",
  description: "store tables above SIZE as shards by host, each about SIZE (bytes, or with KiB/MiB; at most 25MiB)",
  default: DEFAULT_SHARD_BYTES,
  defaultText: "1MiB",
  parse: (text) => parseSize(text),
};

/** A duration like 500ms, 2s or 10m (at most a day), in milliseconds. */
export function parseDurationFlag(text: string, flag: string): number {
  const ms = parseDuration(text);
  if (ms === null || ms <= 0 || ms > 86_400_000)
    throw new UserError(`${flag} ${JSON.stringify(text)} is not a duration from 1ms to 24h`, `for example ${flag} 2s`);
  return ms;
}

/** A TCP port, 1-65535. */
export function parsePort(text: string, flag = "--port"): number {
  const port = /^\d{1,5}$/.test(text) ? Number(text) : Number.NaN;
  if (!(port >= 1 && port <= 65535))
    throw new UserError(`${flag} ${JSON.stringify(text)} is not a port from 1 to 65535`, `for example ${flag} 8080`);
  return port;
}

/** The store the target flags name. */
export const storeTarget = (options: TargetOptions): StoreTarget => ({
  target: options.remote ? "remote" : "local",
  persistTo: options.persistTo,
  wranglerConfig: wranglerConfigOf(options),
  ...(options.env !== undefined ? { env: options.env } : {}),
});
