/**
 * @module Where `--remote` gets its Cloudflare credentials: from the user's own wrangler, run once through its
 * public interface (`wrangler auth token --json`, which reads CLOUDFLARE_API_TOKEN, a global API key or the
 * `wrangler login` and refreshes an OAuth login that expired), and the account and API address wrangler itself
 * would use. A wrangler kedge does not support is named in one line before anything is read or written.
 */
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname } from "node:path";
import { parse } from "smol-toml";
import { parseJsonc } from "../config/jsonc";
import { findWranglerPackage, isSupportedWrangler, WRANGLER_RANGE, type WranglerPackage } from "../lib/wrangler-package";
import { jsonOrNull } from "../lib/json";
import { StorageError, UserError } from "../lib/user-error";
import { literal, obj, str, union } from "../../src/table/structural-schema";

/** What the API is called with, as `wrangler auth token --json` tells it. */
export type CloudflareCredentials =
  | { type: "api_token"; token: string }
  | { type: "oauth"; token: string }
  | { type: "api_key"; key: string; email: string };

const AUTH_TOKEN = union<CloudflareCredentials, "type">("type", {
  api_token: obj({ type: literal("api_token"), token: str() }, { open: true }),
  oauth: obj({ type: literal("oauth"), token: str() }, { open: true }),
  api_key: obj({ type: literal("api_key"), key: str(), email: str() }, { open: true }),
});

/** Where the credentials came from, for messages. */
export function credentialsSource(credentials: CloudflareCredentials): string {
  switch (credentials.type) {
    case "api_token":
      return "the API token in CLOUDFLARE_API_TOKEN";
    case "api_key":
      return "the global API key in CLOUDFLARE_API_KEY and CLOUDFLARE_EMAIL";
    case "oauth":
      return "the `wrangler login` OAuth token";
  }
}

/** The request headers that authenticate as `credentials`. */
export function authHeaders(credentials: CloudflareCredentials): Record<string, string> {
  return credentials.type === "api_key"
    ? { "X-Auth-Key": credentials.key, "X-Auth-Email": credentials.email }
    : { Authorization: `Bearer ${credentials.token}` };
}

/** The project's wrangler, if kedge supports it; else the one line saying what it supports and what it found. */
export function supportedWrangler(wranglerConfig: string): WranglerPackage {
  const project = dirname(wranglerConfig);
  const found = findWranglerPackage(project);
  if (!found)
    throw new UserError(
      `--remote needs wrangler (kedge supports wrangler ${WRANGLER_RANGE.text}), found none in ${project} or beside kedge; nothing was read or written`,
      "npm install --save-dev wrangler@4 in the project",
    );
  if (!isSupportedWrangler(found.version))
    throw new UserError(
      `kedge supports wrangler ${WRANGLER_RANGE.text} (4.86.0 is the first with \`wrangler auth token\`, which --remote takes its credentials from), found ${found.version}; nothing was read or written`,
      "npm install --save-dev wrangler@4 in the project",
    );
  return found;
}

/** Colour codes in wrangler's output (it colours even when piped). */
const ANSI_COLOUR = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, "g");

/** wrangler's `✘ [ERROR]` lines, else its last lines, without its log-file notice. */
function wranglerProblem(output: string): string {
  const lines = output
    .replace(ANSI_COLOUR, "")
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("🪵") && !line.startsWith("npm warn"));
  const errors = lines.filter((line) => line.includes("[ERROR]")).map((line) => line.replace(/^.*?\[ERROR\]\s*/, ""));
  return (errors.length > 0 ? errors : lines.slice(-3)).join(" ");
}

function run(wrangler: WranglerPackage, args: string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolveRun, reject) => {
    const child = spawn(process.execPath, [wrangler.bin, ...args], {
      cwd,
      env: { ...process.env, WRANGLER_SEND_METRICS: "false" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    child.stdout.on("data", (d: Buffer) => stdout.push(d));
    child.stderr.on("data", (d: Buffer) => stderr.push(d));
    child.on("error", reject);
    child.on("close", (code) =>
      resolveRun({ code: code ?? 1, stdout: Buffer.concat(stdout).toString("utf8"), stderr: Buffer.concat(stderr).toString("utf8") }),
    );
  });
}

/** Credentials asked of wrangler in this process, by wrangler and config: one `wrangler auth token` per command. */
const asked = new Map<string, Promise<CloudflareCredentials>>();

/**
 * The credentials wrangler would use: one `wrangler auth token --json`, run in the project with its config, once a
 * process (the preflight's answer is the store's); `fresh` asks again (an OAuth token expired in a long watch).
 */
export function wranglerCredentials(
  wrangler: WranglerPackage,
  wranglerConfig: string,
  options: { fresh?: boolean } = {},
): Promise<CloudflareCredentials> {
  const key = `${wrangler.bin}\0${wranglerConfig}`;
  let credentials = asked.get(key);
  if (!credentials || options.fresh) {
    credentials = askWrangler(wrangler, wranglerConfig);
    asked.set(key, credentials);
    // A failure is not kept: the next command asks again.
    credentials.catch(() => asked.delete(key));
  }
  return credentials;
}

async function askWrangler(wrangler: WranglerPackage, wranglerConfig: string): Promise<CloudflareCredentials> {
  const out = await run(wrangler, ["auth", "token", "--json", "--config", wranglerConfig], dirname(wranglerConfig));
  const json = out.stdout.slice(out.stdout.indexOf("{"), out.stdout.lastIndexOf("}") + 1);
  const credentials = out.code === 0 ? jsonOrNull(json, AUTH_TOKEN) : null;
  if (credentials) return credentials;
  const problem = wranglerProblem(`${out.stderr}\n${out.stdout}`);
  if (/not logged in/i.test(problem))
    throw new UserError(
      "--remote: wrangler has no Cloudflare credentials (no CLOUDFLARE_API_TOKEN, no `wrangler login`); nothing was read or written",
      "run `npx wrangler login`, or set CLOUDFLARE_API_TOKEN to a token with Workers KV Storage: Edit",
    );
  throw new StorageError(
    `--remote: \`wrangler auth token\` (wrangler ${wrangler.version}) failed (exit ${out.code}): ${problem}; nothing was read or written`,
    "check `npx wrangler whoami`",
  );
}

/** The API's address, as wrangler chooses it (CLOUDFLARE_API_BASE_URL, else by compliance region and API environment). */
export function cloudflareApiBaseUrl(env: NodeJS.ProcessEnv = process.env): string {
  const given = env.CLOUDFLARE_API_BASE_URL || env.CF_API_BASE_URL;
  if (given) return given.replace(/\/+$/, "");
  const fed = env.CLOUDFLARE_COMPLIANCE_REGION === "fedramp_high" ? ".fed" : "";
  const staging = env.WRANGLER_API_ENVIRONMENT === "staging" ? ".staging" : "";
  return `https://api${fed}${staging}.cloudflare.com/client/v4`;
}

/** Where the account id was found, for messages. */
export interface AccountChoice {
  id: string | null;
  from: string;
}

/** `account_id` of the wrangler config (an environment's own, else the top level's), if it has one. */
function configAccountId(wranglerConfig: string, envName?: string): string | null {
  if (!existsSync(wranglerConfig)) return null;
  const text = readFileSync(wranglerConfig, "utf8");
  let value: unknown;
  try {
    value = wranglerConfig.endsWith(".toml") ? parse(text) : parseJsonc(text);
  } catch {
    return null;
  }
  const field = (holder: unknown): string | null =>
    typeof holder === "object" &&
    holder !== null &&
    "account_id" in holder &&
    typeof holder.account_id === "string" &&
    holder.account_id !== ""
      ? holder.account_id
      : null;
  const envs = typeof value === "object" && value !== null && "env" in value ? value.env : undefined;
  const section =
    envName && typeof envs === "object" && envs !== null && envName in envs
      ? Object.entries(envs).find(([name]) => name === envName)?.[1]
      : undefined;
  return field(section) ?? field(value);
}

/** The account wrangler would use without asking: CLOUDFLARE_ACCOUNT_ID, else the config's `account_id`; null for neither. */
export function chosenAccount(wranglerConfig: string, envName?: string, env: NodeJS.ProcessEnv = process.env): AccountChoice {
  const fromEnv = env.CLOUDFLARE_ACCOUNT_ID || env.CF_ACCOUNT_ID;
  if (fromEnv) return { id: fromEnv, from: "CLOUDFLARE_ACCOUNT_ID" };
  const fromConfig = configAccountId(wranglerConfig, envName);
  if (fromConfig) return { id: fromConfig, from: `account_id in ${wranglerConfig}` };
  return { id: null, from: "the only account the credentials reach" };
}
