/**
 * @module Requests to the Cloudflare API v4 with the credentials wrangler gave: each answer read as the API's
 * envelope (`{ success, errors: [{ code, message }], result }`), a busy API (429, 5xx) asked again after a
 * growing pause, and any other failure kept with Cloudflare's own words and code for the message that explains it.
 */
import { authHeaders, type CloudflareCredentials } from "./cloudflare-auth";
import { StorageError } from "../lib/user-error";
import { jsonOrNull } from "../lib/json";
import { any, int, list, obj, opt, str } from "../../src/table/structural-schema";

/** One error the API gave, as it gave it. */
export interface ApiProblem {
  code: number;
  message: string;
}

const ENVELOPE = obj<{ success?: unknown; errors?: ApiProblem[]; result?: unknown; result_info?: unknown }>(
  {
    success: opt(any()),
    errors: opt(list(obj<ApiProblem>({ code: int(), message: str() }, { open: true }))),
    result: opt(any()),
    result_info: opt(any()),
  },
  { open: true },
);

/** A request the API refused: its status and errors, and what was asked. */
export class CloudflareApiError extends Error {
  override name = "CloudflareApiError";
  constructor(
    readonly status: number,
    readonly problems: ApiProblem[],
    readonly request: string,
  ) {
    super(`${request}: ${status} ${problems.map((p) => `${p.message} [code ${p.code}]`).join("; ")}`);
  }
  has(code: number): boolean {
    return this.problems.some((p) => p.code === code);
  }
  /** Cloudflare's own words, quoted, with their codes. */
  get said(): string {
    return this.problems.length > 0
      ? this.problems.map((p) => `"${p.message}" [code ${p.code}]`).join(", ")
      : `HTTP ${this.status} with no error text`;
  }
}

export interface ApiRequestOptions {
  method?: string;
  query?: Record<string, string>;
  body?: string;
  contentType?: string;
}

/** Tries of a request the API answered 429 or 5xx, and the first pause (doubled each time, or the API's Retry-After). */
const RETRY = { tries: 6, firstPauseMs: 200, maxPauseMs: 10_000 };

const pause = (ms: number) => new Promise((resolvePause) => setTimeout(resolvePause, ms));

export interface CloudflareApi {
  readonly baseUrl: string;
  readonly credentials: CloudflareCredentials;
  /** Authenticates later requests with `fresh` (an OAuth token wrangler refreshed). */
  useCredentials(fresh: CloudflareCredentials): void;
  /** The answer's `result` (and `result_info`); a refusal throws CloudflareApiError. */
  json(path: string, options?: ApiRequestOptions): Promise<{ result: unknown; resultInfo: unknown }>;
  /** The answer's bytes as UTF-8 text (a KV value), or the refusal as CloudflareApiError. */
  text(path: string, options?: ApiRequestOptions): Promise<string>;
  /** Requests sent so far (retries included), for progress and measurements. */
  readonly sent: number;
}

/** An API client for `credentials` at `baseUrl`. */
export function createCloudflareApi(baseUrl: string, credentials: CloudflareCredentials, userAgent: string): CloudflareApi {
  let sent = 0;
  async function send(path: string, options: ApiRequestOptions): Promise<Response> {
    const url = new URL(`${baseUrl}${path}`);
    for (const [k, v] of Object.entries(options.query ?? {})) url.searchParams.set(k, v);
    const method = options.method ?? "GET";
    const what = `${method} ${path}`;
    for (let attempt = 1; ; attempt++) {
      let response: Response;
      sent++;
      try {
        response = await fetch(url, {
          method,
          headers: {
            ...authHeaders(credentials),
            "User-Agent": userAgent,
            ...(options.contentType ? { "Content-Type": options.contentType } : {}),
          },
          ...(options.body !== undefined ? { body: options.body } : {}),
        });
      } catch (error) {
        const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : String(error);
        throw new StorageError(
          `cannot reach the Cloudflare API at ${baseUrl} (${what}): ${cause}`,
          "check the network (and CLOUDFLARE_API_BASE_URL, if set), then run the command again",
        );
      }
      const busy = response.status === 429 || response.status >= 500;
      if (!busy || attempt >= RETRY.tries) return response;
      await response.arrayBuffer();
      const retryAfter = Number(response.headers.get("retry-after"));
      const wait = retryAfter > 0 ? retryAfter * 1000 : RETRY.firstPauseMs * 2 ** (attempt - 1);
      await pause(Math.min(wait, RETRY.maxPauseMs));
    }
  }
  async function refusal(path: string, method: string, response: Response): Promise<CloudflareApiError> {
    const read = jsonOrNull(await response.text(), ENVELOPE);
    return new CloudflareApiError(response.status, read?.errors ?? [], `${method} ${path}`);
  }
  return {
    baseUrl,
    get credentials() {
      return credentials;
    },
    useCredentials(fresh) {
      credentials = fresh;
    },
    get sent() {
      return sent;
    },
    async json(path, options = {}) {
      const response = await send(path, options);
      const method = options.method ?? "GET";
      if (!response.ok) throw await refusal(path, method, response);
      const text = await response.text();
      const read = jsonOrNull(text, ENVELOPE);
      if (!read || read.success !== true)
        throw new CloudflareApiError(
          response.status,
          read?.errors ?? [{ code: 0, message: `not the API's answer: ${text.slice(0, 80)}` }],
          `${method} ${path}`,
        );
      return { result: read.result, resultInfo: read.result_info };
    },
    async text(path, options = {}) {
      const response = await send(path, options);
      if (!response.ok) throw await refusal(path, options.method ?? "GET", response);
      return Buffer.from(await response.arrayBuffer()).toString("utf8");
    },
  };
}

/** Runs `tasks` with at most `limit` at once, their results in order. */
export async function inParallel<T>(tasks: (() => Promise<T>)[], limit: number): Promise<T[]> {
  const results: T[] = [];
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const i = next++;
      results[i] = await tasks[i]!();
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, worker));
  return results;
}
