/**
 * @module What `--remote` checks before anything else, each in one line: that the wrangler config names a
 * real KV namespace id (not the placeholder `kedge init` and the example write), that the project's wrangler is
 * one kedge supports, and that wrangler has credentials to give (`wrangler auth token`: CLOUDFLARE_API_TOKEN, a
 * global API key, or a `wrangler login`). Without them every later step would fail anyway, after a report the
 * user did not need yet.
 */
import { readWranglerFacts } from "../config/wrangler-config";
import type { StoreTarget } from "../store/open-store";
import { supportedWrangler, wranglerCredentials } from "../store/cloudflare-auth";
import { UserError } from "../lib/user-error";

const NAMESPACE_ID = /^[0-9a-f]{32}$/i;

/** Why the wrangler config's ROUTES id is not a real KV namespace id (the placeholder, a local name), with its fix; null when it is one. */
export function kvNamespaceProblem(wranglerConfig: string, env: string | undefined, id: string): { problem: string; fix: string } | null {
  if (NAMESPACE_ID.test(id)) return null;
  const block = env ? `[[env.${env}.kv_namespaces]]` : "[[kv_namespaces]]";
  return {
    problem: `${wranglerConfig} ${block} ROUTES has id ${JSON.stringify(id)}, not a KV namespace id`,
    fix: `\`npx wrangler kv namespace create ROUTES${env ? ` --env ${env}` : ""}\` prints the id to put there`,
  };
}

/**
 * Throws the one-line reason `--remote` cannot go on, if there is one. The credentials wrangler gives here are
 * the ones the store uses (asked once a process).
 */
export async function remotePreflight(where: StoreTarget): Promise<void> {
  const facts = readWranglerFacts(where.wranglerConfig, where.env);
  const namespace = kvNamespaceProblem(where.wranglerConfig, where.env, facts.kvNamespaceId);
  if (namespace) throw new UserError(`--remote: ${namespace.problem}; nothing was read or written`, namespace.fix);
  await wranglerCredentials(supportedWrangler(where.wranglerConfig), where.wranglerConfig);
}
