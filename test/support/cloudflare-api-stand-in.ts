/**
 * @module A stand-in for the Cloudflare API v4 on 127.0.0.1, as far as Workers KV and the credentials around it
 * go: what `wrangler kv key get/put/delete/list` and `wrangler kv bulk put/get/delete` call (values, metadata,
 * bulk writes, reads and deletes, key lists with prefix, limit and cursor), what a client asks first (`/user`,
 * `/user/tokens/verify`, `/memberships`, `/accounts`, one account, a namespace's details and the namespace list),
 * and kedge's REST store on top. Each request's credentials (`Authorization: Bearer`, or `X-Auth-Key` with
 * `X-Auth-Email`), account and namespace are checked as the API does, and errors come in its envelope
 * (`{ success: false, errors: [{ code, message }], messages: [], result: null }`) with its codes: 9106 missing
 * credentials, 9109 an unknown token, 10000 (403) a token without KV permission or without the account, 10011 a
 * malformed namespace id, 10013 an unknown namespace, 10009 an unknown key. Values are kept as bytes.
 *
 * Checked by pointing the real wrangler at it (`CLOUDFLARE_API_BASE_URL=<url>`, with CLOUDFLARE_API_TOKEN and
 * CLOUDFLARE_ACCOUNT_ID): wrangler 4.86.0 on Node 20 and 4.168.0 on Node 24 run every KV command above against
 * it (see test/e2e/cloudflare-api-stand-in.test.ts); a path it does not serve is answered 404 (code 7003, as the
 * API) and kept in `unknown`.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";

/** What a credential may do with KV: `edit` reads and writes, `read` only reads, `none` neither. */
export type KvPermission = "edit" | "read" | "none";

export interface StandInCredential {
  /** The accounts it reaches. */
  accounts: string[];
  kv: KvPermission;
}

export interface CloudflareApiOptions {
  /** Account id → its name and KV namespace ids. */
  accounts: Record<string, { name: string; namespaces: string[] }>;
  /** API token → what it may do. */
  tokens?: Record<string, StandInCredential>;
  /** Global API keys: `email` + `key` → what it may do. */
  globalKeys?: ({ email: string; key: string } & StandInCredential)[];
}

export interface ApiRequest {
  method: string;
  /** The path after `/client/v4`, with its query. */
  path: string;
  status: number;
}

export interface StoredValue {
  value: Buffer;
  metadata?: unknown;
  expiration?: number;
}

export interface CloudflareApiStandIn {
  /** The API's base URL, for CLOUDFLARE_API_BASE_URL. */
  readonly url: string;
  /** A namespace's keys and values (created empty on first use). */
  namespace(id: string): Map<string, StoredValue>;
  /** A namespace's values as UTF-8 text, by key, sorted. */
  texts(id: string): Record<string, string>;
  /** Every request answered, in order. */
  readonly requests: ApiRequest[];
  /** Requests to paths it does not serve. */
  readonly unknown: string[];
  /** The next `count` KV requests are answered `status` (429 or 5xx), as a busy API would. */
  failNext(count: number, status: number): void;
  close(): Promise<void>;
}

const BASE = "/client/v4";
const NAMESPACE_ID = /^[0-9a-f]{32}$/;
/** The API's limits: 10,000 pairs and 100 MB per bulk write, 100 keys per bulk read, 25 MiB a value, 512 bytes a key. */
const LIMITS = { bulkPairs: 10_000, bulkBytes: 100_000_000, bulkGetKeys: 100, valueBytes: 25 * 1024 * 1024, keyBytes: 512 };

class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

const envelope = (result: unknown, extra: Record<string, unknown> = {}) => ({ success: true, errors: [], messages: [], result, ...extra });

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolveBody, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (d: Buffer) => chunks.push(d));
    req.on("end", () => resolveBody(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

function parseJson(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString("utf8"));
  } catch {
    throw new ApiError(400, 10026, "could not parse request body as JSON");
  }
}

/** A multipart/form-data body's fields, as bytes (wrangler sends a value with metadata so). */
async function formFields(body: Buffer, contentType: string): Promise<Map<string, Buffer>> {
  const form = await new Response(new Uint8Array(body), { headers: { "content-type": contentType } }).formData();
  const entries: [string, FormDataEntryValue][] = [];
  form.forEach((value, name) => entries.push([name, value]));
  const fields = new Map<string, Buffer>();
  for (const [name, value] of entries)
    fields.set(name, typeof value === "string" ? Buffer.from(value) : Buffer.from(await value.arrayBuffer()));
  return fields;
}

/** Starts the stand-in on 127.0.0.1 (a free port). */
export async function startCloudflareApi(options: CloudflareApiOptions): Promise<CloudflareApiStandIn> {
  const store = new Map<string, Map<string, StoredValue>>();
  const namespace = (id: string) => {
    let ns = store.get(id);
    if (!ns) store.set(id, (ns = new Map()));
    return ns;
  };
  const requests: ApiRequest[] = [];
  const unknown: string[] = [];
  let faults = { count: 0, status: 0 };

  const credentialOf = (req: IncomingMessage): StandInCredential => {
    const auth = req.headers.authorization;
    if (auth !== undefined) {
      const token = /^Bearer (.+)$/.exec(auth)?.[1];
      const found = token === undefined ? undefined : options.tokens?.[token];
      if (!found) throw new ApiError(401, 9109, "Invalid access token");
      return found;
    }
    const key = req.headers["x-auth-key"];
    const email = req.headers["x-auth-email"];
    if (key === undefined && email === undefined)
      throw new ApiError(400, 9106, "Missing X-Auth-Key, X-Auth-Email or Authorization headers");
    const found = options.globalKeys?.find((g) => g.key === key && g.email === email);
    if (!found) throw new ApiError(403, 9103, "Unknown X-Auth-Key or X-Auth-Email");
    return found;
  };

  const accountsOf = (credential: StandInCredential) =>
    credential.accounts.filter((id) => options.accounts[id]).map((id) => ({ id, name: options.accounts[id]!.name, type: "standard" }));

  /** Checks a KV request's account, permission and namespace; returns the namespace's store. */
  const kvNamespace = (credential: StandInCredential, account: string, id: string, write: boolean, op: string) => {
    if (!credential.accounts.includes(account) || !options.accounts[account]) throw new ApiError(403, 10000, "Authentication error");
    if (credential.kv === "none" || (write && credential.kv !== "edit")) throw new ApiError(403, 10000, "Authentication error");
    if (!NAMESPACE_ID.test(id)) throw new ApiError(400, 10011, `${op}: could not parse UUID from request's namespace_id: '${id}'`);
    if (!options.accounts[account]!.namespaces.includes(id)) throw new ApiError(404, 10013, `${op}: 'namespace not found'`);
    return namespace(id);
  };

  const checkKey = (key: string, op: string) => {
    if (key === "" || key === "." || key === "..") throw new ApiError(400, 10019, `${op}: illegal key name`);
    if (Buffer.byteLength(key) > LIMITS.keyBytes) throw new ApiError(414, 10033, `${op}: key name too long`);
  };

  const stored = (value: Buffer, metadata: unknown, expiration?: number): StoredValue => {
    if (value.length > LIMITS.valueBytes) throw new ApiError(413, 10023, "value too large");
    return { value, ...(metadata === undefined ? {} : { metadata }), ...(expiration === undefined ? {} : { expiration }) };
  };

  const listAnswer = (items: unknown[], url: URL) => {
    const perPage = Math.min(Number(url.searchParams.get("per_page") ?? 20) || 20, 1000);
    const page = Math.max(Number(url.searchParams.get("page") ?? 1) || 1, 1);
    const slice = items.slice((page - 1) * perPage, page * perPage);
    const result_info = {
      page,
      per_page: perPage,
      count: slice.length,
      total_count: items.length,
      total_pages: Math.ceil(items.length / perPage),
    };
    return envelope(slice, { result_info });
  };

  async function answer(req: IncomingMessage, url: URL, body: Buffer): Promise<{ status: number; json?: unknown; bytes?: Buffer }> {
    const method = req.method ?? "GET";
    const path = url.pathname.slice(BASE.length);
    const credential = credentialOf(req);
    const ok = (result: unknown) => ({ status: 200, json: envelope(result) });

    if (method === "GET" && path === "/user/tokens/verify") {
      if (!req.headers.authorization) throw new ApiError(400, 6003, "Invalid request headers");
      return ok({ id: "0123456789abcdef0123456789abcdef", status: "active" });
    }
    if (method === "GET" && path === "/user") return ok({ id: "5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a", email: "user@example.com" });
    if (method === "GET" && path === "/memberships")
      return {
        status: 200,
        json: listAnswer(
          accountsOf(credential).map((a) => ({ id: `m-${a.id}`, status: "accepted", account: a, roles: ["Administrator"] })),
          url,
        ),
      };
    if (method === "GET" && path === "/accounts") return { status: 200, json: listAnswer(accountsOf(credential), url) };

    const account = /^\/accounts\/([^/]+)(\/.*)?$/.exec(path);
    if (!account) return unserved(method, url);
    const accountId = decodeURIComponent(account[1]!);
    const rest = account[2] ?? "";
    if (method === "GET" && rest === "") {
      const found = accountsOf(credential).find((a) => a.id === accountId);
      if (!found) throw new ApiError(403, 10000, "Authentication error");
      return ok(found);
    }
    if (method === "GET" && rest === "/storage/kv/namespaces") {
      kvNamespaceAccount(credential, accountId);
      const ids = options.accounts[accountId]!.namespaces;
      return {
        status: 200,
        json: listAnswer(
          ids.map((id) => ({ id, title: `namespace-${id.slice(0, 6)}`, supports_url_encoding: true })),
          url,
        ),
      };
    }
    const kv = /^\/storage\/kv\/namespaces\/([^/]+)(\/.*)?$/.exec(rest);
    if (!kv) return unserved(method, url);
    if (faults.count > 0) {
      faults.count--;
      return {
        status: faults.status,
        json: { success: false, errors: [{ code: 10001, message: "service unavailable, try again" }], messages: [], result: null },
      };
    }
    const namespaceId = decodeURIComponent(kv[1]!);
    const sub = kv[2] ?? "";
    const write = method !== "GET" && !(method === "POST" && sub === "/bulk/get");

    if (method === "GET" && sub === "") {
      kvNamespace(credential, accountId, namespaceId, false, "get namespace");
      return ok({ id: namespaceId, title: `namespace-${namespaceId.slice(0, 6)}`, supports_url_encoding: true });
    }
    const value = /^\/(values|metadata)\/(.+)$/.exec(sub);
    if (value) {
      // The key is one path segment, percent-encoded by the client.
      const key = decodeURIComponent(value[2]!);
      const op = value[1] === "metadata" ? "get metadata" : { GET: "get", PUT: "put", DELETE: "delete" }[method];
      if (!op || (value[1] === "metadata" && method !== "GET")) return unserved(method, url);
      const ns = kvNamespace(credential, accountId, namespaceId, write, op);
      checkKey(key, op);
      if (method === "GET") {
        const found = ns.get(key);
        if (!found) throw new ApiError(404, 10009, `${op}: 'key not found'`);
        return value[1] === "metadata" ? ok(found.metadata ?? null) : { status: 200, bytes: found.value };
      }
      if (method === "DELETE") {
        ns.delete(key);
        return ok(null);
      }
      const expiration = url.searchParams.get("expiration");
      const contentType = req.headers["content-type"] ?? "";
      if (contentType.startsWith("multipart/form-data")) {
        const fields = await formFields(body, contentType);
        const metadata = fields.get("metadata");
        ns.set(
          key,
          stored(fields.get("value") ?? Buffer.alloc(0), metadata && parseJson(metadata), expiration ? Number(expiration) : undefined),
        );
      } else ns.set(key, stored(body, undefined, expiration ? Number(expiration) : undefined));
      return ok(null);
    }
    if (method === "GET" && sub === "/keys") {
      const ns = kvNamespace(credential, accountId, namespaceId, false, "list keys");
      const prefix = url.searchParams.get("prefix") ?? "";
      const limit = Number(url.searchParams.get("limit") ?? 1000);
      if (!Number.isInteger(limit) || limit < 10 || limit > 1000)
        throw new ApiError(400, 10026, "list keys: limit must be between 10 and 1000");
      const cursor = url.searchParams.get("cursor");
      const after = cursor ? Buffer.from(cursor, "base64url").toString("utf8") : null;
      const names = [...ns.keys()].filter((k) => k.startsWith(prefix) && (after === null || k > after)).sort();
      const page = names.slice(0, limit);
      const more = names.length > limit;
      const result = page.map((name) => {
        const v = ns.get(name)!;
        return {
          name,
          ...(v.expiration === undefined ? {} : { expiration: v.expiration }),
          ...(v.metadata === undefined ? {} : { metadata: v.metadata }),
        };
      });
      const next = more ? Buffer.from(page.at(-1)!).toString("base64url") : "";
      return { status: 200, json: envelope(result, { result_info: { count: result.length, cursor: next } }) };
    }
    if (method === "PUT" && sub === "/bulk") {
      const ns = kvNamespace(credential, accountId, namespaceId, true, "bulk put");
      if (body.length > LIMITS.bulkBytes) throw new ApiError(413, 10046, "bulk put: request body too large");
      const pairs = parseJson(body);
      if (!Array.isArray(pairs)) throw new ApiError(400, 10026, "bulk put: body must be an array");
      if (pairs.length > LIMITS.bulkPairs) throw new ApiError(400, 10047, `bulk put: at most ${LIMITS.bulkPairs} pairs per request`);
      const checked = pairs.map((pair: unknown) => {
        if (typeof pair !== "object" || pair === null) throw new ApiError(400, 10026, "bulk put: each pair must be an object");
        const { key, value, base64, metadata, expiration } = pair as Record<string, unknown>;
        if (typeof key !== "string" || typeof value !== "string") throw new ApiError(400, 10026, "bulk put: key and value must be strings");
        checkKey(key, "bulk put");
        const bytes = base64 === true ? Buffer.from(value, "base64") : Buffer.from(value, "utf8");
        return [key, stored(bytes, metadata, typeof expiration === "number" ? expiration : undefined)] as const;
      });
      for (const [key, v] of checked) ns.set(key, v);
      return ok({ successful_key_count: checked.length, unsuccessful_keys: [] });
    }
    if ((method === "DELETE" && sub === "/bulk") || (method === "POST" && sub === "/bulk/delete")) {
      const ns = kvNamespace(credential, accountId, namespaceId, true, "bulk delete");
      const keys = parseJson(body);
      if (!Array.isArray(keys) || !keys.every((k) => typeof k === "string"))
        throw new ApiError(400, 10026, "bulk delete: body must be an array of keys");
      if (keys.length > LIMITS.bulkPairs) throw new ApiError(400, 10047, `bulk delete: at most ${LIMITS.bulkPairs} keys per request`);
      for (const key of keys) ns.delete(key);
      return ok({ successful_key_count: keys.length, unsuccessful_keys: [] });
    }
    if (method === "POST" && sub === "/bulk/get") {
      const ns = kvNamespace(credential, accountId, namespaceId, false, "bulk get");
      const request = parseJson(body);
      const { keys, type, withMetadata } = (typeof request === "object" && request !== null ? request : {}) as Record<string, unknown>;
      if (!Array.isArray(keys) || !keys.every((k) => typeof k === "string"))
        throw new ApiError(400, 10026, "bulk get: keys must be an array of strings");
      if (keys.length > LIMITS.bulkGetKeys) throw new ApiError(400, 10026, `bulk get: at most ${LIMITS.bulkGetKeys} keys per request`);
      const values: Record<string, unknown> = {};
      for (const key of keys) {
        const found = ns.get(key);
        const text = found ? found.value.toString("utf8") : null;
        let v: unknown = text;
        if (text !== null && type === "json") {
          try {
            v = JSON.parse(text);
          } catch {
            throw new ApiError(400, 10026, `bulk get: value of ${key} is not JSON`);
          }
        }
        values[key] =
          withMetadata === true ? (found ? { value: v, metadata: found.metadata ?? null, expiration: found.expiration ?? null } : null) : v;
      }
      return ok({ values });
    }
    return unserved(method, url);
  }

  function kvNamespaceAccount(credential: StandInCredential, account: string) {
    if (!credential.accounts.includes(account) || !options.accounts[account] || credential.kv === "none")
      throw new ApiError(403, 10000, "Authentication error");
  }

  function unserved(method: string, url: URL): never {
    unknown.push(`${method} ${url.pathname.slice(BASE.length)}${url.search}`);
    throw new ApiError(404, 7003, "Could not route to " + url.pathname + ", perhaps your object identifier is invalid?");
  }

  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const send = (status: number, json?: unknown, bytes?: Buffer) => {
      requests.push({ method: req.method ?? "GET", path: `${url.pathname.slice(BASE.length)}${url.search}`, status });
      if (bytes) res.writeHead(status, { "content-type": "application/octet-stream", "content-length": bytes.length }).end(bytes);
      else {
        const text = JSON.stringify(json);
        res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) }).end(text);
      }
    };
    readBody(req)
      .then(async (body) => {
        if (!url.pathname.startsWith(`${BASE}/`)) return unserved(req.method ?? "GET", url);
        const out = await answer(req, url, body);
        send(out.status, out.json, out.bytes);
      })
      .catch((error: unknown) => {
        if (error instanceof ApiError)
          send(error.status, { success: false, errors: [{ code: error.code, message: error.message }], messages: [], result: null });
        else send(500, { success: false, errors: [{ code: 10001, message: String(error) }], messages: [], result: null });
      });
  });
  await new Promise<void>((resolveListen) => server.listen(0, "127.0.0.1", resolveListen));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;

  return {
    url: `http://127.0.0.1:${port}${BASE}`,
    namespace,
    texts(id) {
      return Object.fromEntries(
        [...namespace(id).entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, v]) => [k, v.value.toString("utf8")]),
      );
    },
    requests,
    unknown,
    failNext(count, status) {
      faults = { count, status };
    },
    close: () =>
      new Promise<void>((resolveClose) => {
        server.closeAllConnections();
        server.close(() => resolveClose());
      }),
  };
}
