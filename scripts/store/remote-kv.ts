/**
 * @module Remote KV through the Workers KV REST API, with the credentials the user's wrangler gives
 * (cloudflare-auth.ts): wrangler runs once per command, not once per operation. Writes go in bulk (at most
 * 10,000 pairs and 16 MiB of values a request, a few requests at once), reads in bulk (10 keys a request), key
 * lists follow the API's cursor. The namespace is checked before anything else, so that a missing key (null)
 * and a missing namespace, a wrong token, a missing permission or another account (one-line errors naming the
 * cause and the fix) are told apart. Values are UTF-8 text, read back as the exact bytes stored.
 */
import { createCloudflareApi, CloudflareApiError, inParallel, type CloudflareApi } from "./cloudflare-api";
import { chosenAccount, cloudflareApiBaseUrl, credentialsSource, supportedWrangler, wranglerCredentials } from "./cloudflare-auth";
import type { KvStore } from "./kv-store";
import { StorageError, UserError } from "../lib/user-error";
import { packageVersion } from "../lib/package-files";
import { conforms, list, map, any, obj, str, opt } from "../../src/table/structural-schema";

/** A bulk write's batch: the API takes 10,000 pairs and 100 MB a request; 16 MiB of values stays well under. */
const PUT_BATCH = { pairs: 10_000, bytes: 16 * 1024 * 1024 };
/**
 * A bulk read's batch: the API returns at most 100 keys a request; ten 1 MiB shards keep an answer to 10 MiB.
 * read-table.ts reads shards as many at a time.
 */
export const GET_BATCH_KEYS = 10;
/** A bulk delete's batch: the API takes at most 10,000 keys a request. */
const DELETE_BATCH_KEYS = 10_000;
/** Requests in flight at once: a push of 36 shards in three bulk writes sends them together. */
const PARALLEL = 4;
/** A key list's page (the API's largest), and a bound on pages (ten million keys). */
const LIST_PAGE = 1000;
const LIST_MAX_PAGES = 10_000;
/** The API's code for a key that is not there (its 404 on a namespace that is there). */
const KEY_NOT_FOUND = 10009;

const KEY_PAGE = list(obj<{ name: string }>({ name: str() }, { open: true }));
const CURSOR = obj<{ cursor?: string }>({ cursor: opt(str()) }, { open: true });
const BULK_VALUES = obj<{ values: Record<string, unknown> }>({ values: map(any()) }, { open: true });
const ACCOUNTS = list(obj<{ id: string; name?: string }>({ id: str(), name: opt(str()) }, { open: true }));

export interface RemoteKvOptions {
  namespaceId: string;
  wranglerConfig: string;
  /** The wrangler environment whose namespace this is, for messages. */
  env?: string;
  progress?: (line: string) => void;
}

/** The accounts the credentials reach (the first page of 50 is plenty to name them). */
async function reachableAccounts(api: CloudflareApi): Promise<{ id: string; name?: string }[]> {
  const { result } = await api.json("/accounts", { query: { per_page: "50" } });
  return conforms(result, ACCOUNTS) ? result : [];
}

/**
 * Opens the namespace: runs the project's wrangler for its credentials, settles the account, and reads the
 * namespace's details once, so that every failure is named before anything is written.
 */
export async function openRemoteKv(options: RemoteKvOptions): Promise<KvStore> {
  const { namespaceId, wranglerConfig, progress } = options;
  const wrangler = supportedWrangler(wranglerConfig);
  const credentials = await wranglerCredentials(wrangler, wranglerConfig);
  const api = createCloudflareApi(cloudflareApiBaseUrl(), credentials, `kedge/${packageVersion()} (wrangler/${wrangler.version})`);
  const source = credentialsSource(credentials);
  const block = `${options.env ? `[[env.${options.env}.kv_namespaces]]` : "[[kv_namespaces]]"} ROUTES in ${wranglerConfig}`;
  const choice = chosenAccount(wranglerConfig, options.env);
  const fixCredentials =
    credentials.type === "api_token"
      ? "set CLOUDFLARE_API_TOKEN to a valid token with the permission Workers KV Storage: Edit (dash.cloudflare.com → My Profile → API Tokens)"
      : credentials.type === "oauth"
        ? "run `npx wrangler login` again"
        : "check CLOUDFLARE_API_KEY and CLOUDFLARE_EMAIL, or use CLOUDFLARE_API_TOKEN";

  /** The one-line StorageError that says what a refusal means, looking further (accounts, namespaces) where it must. */
  async function explain(error: unknown, accountId: string, doing: "read" | "write"): Promise<Error> {
    if (!(error instanceof CloudflareApiError)) return error instanceof Error ? error : new Error(String(error));
    const where = `account ${accountId} (from ${choice.from})`;
    if (error.status === 401 || error.has(9109) || error.has(9103) || error.has(6003) || error.has(6111) || error.has(1000))
      return new StorageError(`Cloudflare refused ${source}: ${error.said}`, fixCredentials);
    if (error.status === 403) {
      const reachable = await reachableAccounts(api).catch(() => null);
      if (reachable && !reachable.some((a) => a.id === accountId))
        return new StorageError(
          `${source} cannot reach ${where}, which should hold KV namespace ${namespaceId}: Cloudflare says ${error.said}`,
          `set CLOUDFLARE_ACCOUNT_ID (or account_id in ${wranglerConfig}) to the account holding the namespace${reachable.length > 0 ? `; the credentials reach ${reachable.map((a) => a.id).join(", ")}` : ""}`,
        );
      return new StorageError(
        `${source} lacks the permission Workers KV Storage: ${doing === "write" ? "Edit" : "Read"} in ${where}: Cloudflare says ${error.said}`,
        credentials.type === "api_token"
          ? "give the token the permission Workers KV Storage: Edit for that account (dash.cloudflare.com → My Profile → API Tokens)"
          : "log in with an account that may edit Workers KV (`npx wrangler login`)",
      );
    }
    if ((error.status === 404 && !error.has(KEY_NOT_FOUND)) || error.has(10011) || error.has(10013)) {
      const reachable = await reachableAccounts(api).catch(() => []);
      for (const other of reachable.filter((a) => a.id !== accountId).slice(0, 20)) {
        const there = await api.json(`/accounts/${other.id}/storage/kv/namespaces/${namespaceId}`).then(
          () => true,
          () => false,
        );
        if (there)
          return new StorageError(
            `KV namespace ${namespaceId} (${block}) is in account ${other.id}, not in ${where}`,
            `set CLOUDFLARE_ACCOUNT_ID (or account_id in ${wranglerConfig}) to ${other.id}`,
          );
      }
      return new StorageError(
        `KV namespace ${namespaceId} (${block}) does not exist in ${where}: Cloudflare says ${error.said}`,
        `\`npx wrangler kv namespace list\` lists the account's namespaces: put the ROUTES namespace's id in ${block.split(" ROUTES")[0]}, or make one with \`npx wrangler kv namespace create ROUTES\``,
      );
    }
    return new StorageError(
      `remote KV ${doing} failed (${error.request}): Cloudflare says ${error.said}`,
      "run the command again; if it persists, see https://www.cloudflarestatus.com",
    );
  }

  /** The account and the namespace, settled and checked once, at the first operation (before any write). */
  let opened: Promise<string> | undefined;
  const ready = (): Promise<string> => (opened ??= settle());
  async function settle(): Promise<string> {
    let accountId = choice.id;
    if (accountId === null) {
      const reachable = await reachableAccounts(api).catch(async (error: unknown) => {
        throw await explain(error, "(none chosen)", "read");
      });
      if (reachable.length !== 1)
        throw new UserError(
          `--remote: ${source} reaches ${reachable.length === 0 ? "no account" : `${reachable.length} accounts (${reachable.map((a) => a.id).join(", ")})`}, and neither CLOUDFLARE_ACCOUNT_ID nor account_id in ${wranglerConfig} says which holds KV namespace ${namespaceId}; nothing was read or written`,
          `set account_id in ${wranglerConfig} (or CLOUDFLARE_ACCOUNT_ID) to the account's id`,
        );
      accountId = reachable[0]!.id;
    }
    const path = `/accounts/${encodeURIComponent(accountId)}/storage/kv/namespaces/${encodeURIComponent(namespaceId)}`;
    const account = accountId;
    await retried(() => api.json(path)).catch(async (error: unknown) => {
      const explained = await explain(error, account, "read");
      if (explained instanceof StorageError)
        throw new StorageError(`--remote: ${explained.message}; nothing was read or written`, explained.hint);
      throw explained;
    });
    accountOf = account;
    return path;
  }
  let accountOf = "";

  /** `fn` again once with fresh credentials when an OAuth token expired meanwhile (a long `sync --watch`). */
  async function retried<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (error) {
      if (!(error instanceof CloudflareApiError && error.status === 401 && api.credentials.type === "oauth")) throw error;
      api.useCredentials(await wranglerCredentials(wrangler, wranglerConfig, { fresh: true }));
      return fn();
    }
  }
  /** Runs `fn` on the checked namespace (its path), explaining a refusal. */
  const call = async <T>(fn: (ns: string) => Promise<T>, doing: "read" | "write"): Promise<T> => {
    const ns = await ready();
    return retried(() => fn(ns)).catch(async (error: unknown) => {
      throw await explain(error, accountOf, doing);
    });
  };

  const bulkGet = async (keys: string[]): Promise<(string | null)[]> => {
    const { result } = await call(
      (ns) => api.json(`${ns}/bulk/get`, { method: "POST", body: JSON.stringify({ keys, type: "text" }), contentType: "application/json" }),
      "read",
    );
    if (!conforms(result, BULK_VALUES))
      throw new StorageError(`remote KV bulk get answered ${JSON.stringify(result).slice(0, 80)}`, "run the command again");
    return keys.map((key) => {
      const value = result.values[key];
      return typeof value === "string" ? value : null;
    });
  };

  return {
    description: `remote KV namespace ${namespaceId}`,
    async get(key) {
      const ns = await ready();
      try {
        return await retried(() => api.text(`${ns}/values/${encodeURIComponent(key)}`));
      } catch (error) {
        if (error instanceof CloudflareApiError && error.status === 404 && error.has(KEY_NOT_FOUND)) return null;
        throw await explain(error, accountOf, "read");
      }
    },
    async put(key, value) {
      await call(
        (ns) =>
          api.json(`${ns}/values/${encodeURIComponent(key)}`, { method: "PUT", body: value, contentType: "text/plain; charset=utf-8" }),
        "write",
      );
    },
    async delete(key) {
      await call((ns) => api.json(`${ns}/values/${encodeURIComponent(key)}`, { method: "DELETE" }), "write");
    },
    // Values are taken as they come and sent a batch at a time, a few batches at once: the shards of a large table
    // are never all held as text, and a push is a handful of requests.
    async putMany(taken) {
      const inFlight = new Set<Promise<void>>();
      let batch: { key: string; value: string }[] = [];
      let bytes = 0;
      let done = 0;
      const flush = async () => {
        if (batch.length === 0) return;
        const body = JSON.stringify(batch);
        const count = batch.length;
        batch = [];
        bytes = 0;
        const sending = call((ns) => api.json(`${ns}/bulk`, { method: "PUT", body, contentType: "application/json" }), "write").then(() => {
          done += count;
          progress?.(`  written ${done} values`);
        });
        sending.catch(() => undefined);
        inFlight.add(sending);
        void sending.finally(() => inFlight.delete(sending)).catch(() => undefined);
        if (inFlight.size >= PARALLEL) await Promise.race(inFlight);
      };
      for (const [key, value] of taken) {
        const size = Buffer.byteLength(value);
        if (batch.length >= PUT_BATCH.pairs || (batch.length > 0 && bytes + size > PUT_BATCH.bytes)) await flush();
        batch.push({ key, value });
        bytes += size;
      }
      await flush();
      await Promise.all(inFlight);
    },
    async deleteMany(keys) {
      const batches: string[][] = [];
      for (let at = 0; at < keys.length; at += DELETE_BATCH_KEYS) batches.push(keys.slice(at, at + DELETE_BATCH_KEYS));
      await inParallel(
        batches.map(
          (batch) => () =>
            call(
              (ns) => api.json(`${ns}/bulk`, { method: "DELETE", body: JSON.stringify(batch), contentType: "application/json" }),
              "write",
            ),
        ),
        PARALLEL,
      );
    },
    async getMany(keys) {
      const batches: string[][] = [];
      for (let at = 0; at < keys.length; at += GET_BATCH_KEYS) batches.push(keys.slice(at, at + GET_BATCH_KEYS));
      let read = 0;
      const values = await inParallel(
        batches.map((batch) => async () => {
          const got = await bulkGet(batch);
          read += got.length;
          if (keys.length > GET_BATCH_KEYS) progress?.(`  read ${read} of ${keys.length} values`);
          return got;
        }),
        PARALLEL,
      );
      return values.flat();
    },
    async list(prefix) {
      const names: string[] = [];
      let cursor = "";
      for (let page = 0; page < LIST_MAX_PAGES; page++) {
        const query: Record<string, string> = { prefix, limit: String(LIST_PAGE), ...(cursor ? { cursor } : {}) };
        const { result, resultInfo } = await call((ns) => api.json(`${ns}/keys`, { query }), "read");
        if (!conforms(result, KEY_PAGE))
          throw new StorageError(`remote KV key list answered ${JSON.stringify(result).slice(0, 80)}`, "run the command again");
        names.push(...result.map((k) => k.name));
        cursor = conforms(resultInfo, CURSOR) ? (resultInfo.cursor ?? "") : "";
        if (cursor === "") break;
      }
      return names.sort();
    },
    async close() {},
  };
}
