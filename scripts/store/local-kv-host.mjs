// @ts-check
/**
 * @module Local KV host: a process of its own, started by `openLocalKv` (local-kv.ts) with an IPC channel.
 * It loads Miniflare, serves the KV namespace persisted under `<persist-to>/v3` (where
 * `wrangler dev --persist-to` reads it), sends `{ ready: true }`, then answers `{ id, op, key, value? }`
 * messages with `{ id, value? }` or `{ id, error }`. A `list` op's key is the prefix, its value the keys as JSON; a
 * `digest` op's value is the hex SHA-256 of the stored value's bytes. It runs until the channel closes: when the
 * sync is done with it, or when the sync's process dies. It never outlives the sync.
 *
 * Why a process: loading Miniflare and starting workerd take about a second, mostly on the thread that
 * loads it. Here that second runs on another core while the sync reads and compiles the config. Why IPC:
 * the sync needs no HTTP client (loading fetch costs it about 60 ms) and nothing listens for it on a
 * port. Why plain JavaScript: it starts with bare `node` (no TypeScript loader to start first).
 */
import { createHash, randomBytes } from "node:crypto";
import { request } from "node:http";
import { createRequire } from "node:module";
import { resolve } from "node:path";

/**
 * GET, PUT and DELETE `?key=` on the namespace. workerd listens on loopback, where any local user could reach it,
 * so every request must carry this run's bearer token. Values pass through as streams of bytes, not decoded into
 * text and encoded again: a first push of 100k routes wrote its 36 shards and read their digests back in
 * 0.94-0.98 s so, 0.99-1.15 s as text (four alternating runs each).
 */
const KV_OVER_HTTP = `export default {
  async fetch(request, env) {
    if (request.headers.get("authorization") !== "Bearer " + env.TOKEN) return new Response(null, { status: 403 });
    const params = new URL(request.url).searchParams;
    if (params.has("prefix")) {
      const names = [];
      let cursor;
      do {
        const page = await env.ROUTES.list({ prefix: params.get("prefix"), cursor });
        names.push(...page.keys.map((k) => k.name));
        cursor = page.list_complete ? undefined : page.cursor;
      } while (cursor);
      return Response.json(names);
    }
    const key = params.get("key");
    if (!key) return new Response("missing ?key=", { status: 400 });
    switch (request.method) {
      case "GET": {
        const value = await env.ROUTES.get(key, "stream");
        return value === null ? new Response(null, { status: 404 }) : new Response(value);
      }
      case "PUT":
        await env.ROUTES.put(key, request.body ?? "");
        return new Response(null, { status: 204 });
      case "DELETE":
        await env.ROUTES.delete(key);
        return new Response(null, { status: 204 });
      default:
        return new Response(null, { status: 405 });
    }
  },
};`;

/** @typedef {{ id: number, op: "get" | "put" | "delete" | "list" | "digest", key: string, value?: string }} KvRequest */

/**
 * One request to the KV Worker, with node:http rather than fetch: fetch's HTTP parser is WebAssembly,
 * whose background compilation holds a process's exit for about 0.3 s here.
 * @param {URL} url
 * @param {string} method
 * @param {string} token
 * @param {string | undefined} body
 * @returns {Promise<{ status: number, body: Buffer }>}
 */
function call(url, method, token, body) {
  return new Promise((resolve, reject) => {
    const sent = request(url, { method, headers: { authorization: `Bearer ${token}` } }, (response) => {
      /** @type {Buffer[]} */
      const chunks = [];
      response.on("data", (chunk) => chunks.push(chunk));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks) }));
      response.on("error", reject);
    });
    sent.on("error", reject);
    sent.end(body);
  });
}

/**
 * A failed send (EPIPE: the sync has just gone) is that sync's departure, reported to the callback
 * rather than as an 'error' that would crash this host before it disposes workerd.
 * @param {unknown} message
 */
const send = (message) => {
  if (process.connected) process.send?.(message, (/** @type {Error | null} */ error) => error && stop());
};

/** The Miniflare instance once constructed; disposed (stopping workerd) when the sync goes away. */
/** @type {import("miniflare").Miniflare | undefined} */
let started;
/** Set when the sync has gone: nothing more is started, what was started is disposed, then this exits. */
let gone = false;
function stop() {
  if (gone) return;
  gone = true;
  void (started?.dispose() ?? Promise.resolve()).finally(() => process.exit(0));
}
// Registered before Miniflare loads: a sync that goes away while this host starts still ends it.
process.on("disconnect", stop);
// The channel may have closed before this module ran at all (the sync was killed as the host started).
if (!process.connected) stop();

/**
 * @param {string} persistTo
 * @param {string} namespaceId
 */
async function serve(persistTo, namespaceId) {
  if (gone) return;
  const token = randomBytes(24).toString("hex");
  // With require: Miniflare is one 3.8 MB CommonJS file, and an ESM import of it first scans it for
  // named exports (about a second here).
  /** @type {typeof import("miniflare")} */
  // The Miniflare the sync resolved for it (the one the user's wrangler brings), else this file's neighbour.
  // Miniflare 5 takes its options in a new shape, and converts release 4's (what this file writes) itself.
  const { Miniflare, convertV4MiniflareOptions } = createRequire(import.meta.url)(process.argv[4] ?? "miniflare");
  const v4Options = {
    modules: true,
    script: KV_OVER_HTTP,
    kvNamespaces: { ROUTES: namespaceId },
    bindings: { TOKEN: token },
    defaultPersistRoot: resolve(persistTo, "v3"),
    kvPersist: true,
    cf: false,
  };
  // Release 5 keeps state under `resourcePersistencePath`, in the folders release 4's `defaultPersistRoot` had.
  const mf = new Miniflare(
    convertV4MiniflareOptions
      ? { ...convertV4MiniflareOptions(v4Options), logRequests: false, resourcePersistencePath: v4Options.defaultPersistRoot }
      : v4Options,
  );
  started = mf;
  const url = await mf.ready;
  const method = { get: "GET", put: "PUT", delete: "DELETE", list: "GET", digest: "GET" };

  /** @param {KvRequest} request */
  async function answer({ id, op, key, value }) {
    try {
      const query = op === "list" ? `?prefix=${encodeURIComponent(key)}` : `?key=${encodeURIComponent(key)}`;
      const { status, body } = await call(new URL(query, url), method[op], token, value);
      if (status === 404) send({ id, value: null });
      else if (status < 200 || status > 299) send({ id, error: `${status} ${body.toString("utf8")}` });
      else if (op === "digest") send({ id, value: createHash("sha256").update(body).digest("hex") });
      else send({ id, value: op === "get" || op === "list" ? body.toString("utf8") : undefined });
    } catch (error) {
      send({ id, error: error instanceof Error ? error.message : String(error) });
    }
  }

  process.on("message", (/** @type {KvRequest} */ request) => void answer(request));
  send({ ready: true });
}

const [persistTo, namespaceId] = process.argv.slice(2);
if (!persistTo || !namespaceId || !process.send) {
  console.error("usage: started by openLocalKv with an IPC channel: node local-kv-host.mjs <persist-to> <namespace id>");
  process.exit(2);
}
serve(persistTo, namespaceId).catch((/** @type {unknown} */ error) => {
  if (gone) return; // disposed while starting: stop() exits
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
});
