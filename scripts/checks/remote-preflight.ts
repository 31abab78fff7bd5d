/**
 * @module What `--remote` checks before anything else, each in one line: that the wrangler config names a
 * real KV namespace id (not the placeholder `kedge init` and the example write), and that wrangler has
 * credentials to use (CLOUDFLARE_API_TOKEN, a global API key, or a `wrangler login`). Without them every
 * later step would fail anyway, after a report the user did not need yet.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { readWranglerFacts } from "../config/wrangler-config";
import type { StoreTarget } from "../store/open-store";
import { UserError } from "../lib/user-error";

const NAMESPACE_ID = /^[0-9a-f]{32}$/i;

/** The folders wrangler keeps its login in (its XDG config folder, and the legacy ~/.wrangler). */
function wranglerConfigDirs(env: NodeJS.ProcessEnv, home: string): string[] {
  return [join(env.XDG_CONFIG_HOME || join(home, ".config"), ".wrangler", "config"), join(home, ".wrangler", "config")];
}

/** Whether wrangler has something to authenticate with. */
export function hasCloudflareCredentials(env: NodeJS.ProcessEnv = process.env, home = homedir()): boolean {
  if (env.CLOUDFLARE_API_TOKEN || (env.CLOUDFLARE_API_KEY && env.CLOUDFLARE_EMAIL)) return true;
  return wranglerConfigDirs(env, home).some(
    (dir) =>
      existsSync(dir) &&
      readdirSync(dir)
        .filter((f) => f.endsWith(".toml"))
        .some((f) => /^\s*(oauth_token|api_token)\s*=/m.test(readFileSync(join(dir, f), "utf8"))),
  );
}

/** Why the wrangler config's ROUTES id is not a real KV namespace id (the placeholder, a local name), with its fix; null when it is one. */
export function kvNamespaceProblem(wranglerConfig: string, env: string | undefined, id: string): { problem: string; fix: string } | null {
  if (NAMESPACE_ID.test(id)) return null;
  const block = env ? `[[env.${env}.kv_namespaces]]` : "[[kv_namespaces]]";
  return {
    problem: `${wranglerConfig} ${block} ROUTES has id ${JSON.stringify(id)}, not a KV namespace id`,
    fix: `\`npx wrangler kv namespace create ROUTES${env ? ` --env ${env}` : ""}\` prints the id to put there`,
  };
}

/** Throws the one-line reason `--remote` cannot go on, if there is one. */
export function remotePreflight(where: StoreTarget, env: NodeJS.ProcessEnv = process.env, home = homedir()): void {
  const facts = readWranglerFacts(where.wranglerConfig, where.env);
  const namespace = kvNamespaceProblem(where.wranglerConfig, where.env, facts.kvNamespaceId);
  if (namespace) throw new UserError(`--remote: ${namespace.problem}; nothing was read or written`, namespace.fix);
  if (!hasCloudflareCredentials(env, home))
    throw new UserError(
      "--remote: wrangler has no Cloudflare credentials (no CLOUDFLARE_API_TOKEN, no `wrangler login`); nothing was read or written",
      "run `npx wrangler login`, or set CLOUDFLARE_API_TOKEN to a token with Workers KV Storage: Edit",
    );
}
