// @ts-check
/**
 * @module Local KV host: a process of its own, started by `openLocalKv` (local-kv.ts). It loads Miniflare,
 * serves the KV namespace persisted under `<persist-to>/v3` (where `wrangler dev --persist-to` reads it)
 * through a tiny Worker, prints one line of JSON (`{ "url", "token" }`), and runs until its stdin closes:
 * when the sync is done with it, or when the sync's process dies. It never outlives the sync.
 *
 * Why a process: loading Miniflare and starting workerd take about a second, mostly on the thread that
 * loads it. Here that second runs on another core while the sync reads and compiles the config. Why plain
 * JavaScript: it starts with bare `node` (no TypeScript loader to start first) from any caller.
 */
import { randomBytes } from "node:crypto";
import { createRequire } from "node:module";
import { resolve } from "node:path";

/** GET, PUT and DELETE `?key=` on the namespace; every request carries the host's bearer token. */
const KV_OVER_HTTP = `export default {
  async fetch(request, env) {
    if (request.headers.get("authorization") !== "Bearer " + env.TOKEN) return new Response(null, { status: 403 });
    const key = new URL(request.url).searchParams.get("key");
    if (!key) return new Response("missing ?key=", { status: 400 });
    switch (request.method) {
      case "GET": {
        const value = await env.ROUTES.get(key, "text");
        return value === null ? new Response(null, { status: 404 }) : new Response(value);
      }
      case "PUT":
        await env.ROUTES.put(key, await request.text());
        return new Response(null, { status: 204 });
      case "DELETE":
        await env.ROUTES.delete(key);
        return new Response(null, { status: 204 });
      default:
        return new Response(null, { status: 405 });
    }
  },
};`;

/**
 * @param {string} persistTo
 * @param {string} namespaceId
 */
async function serve(persistTo, namespaceId) {
  const token = randomBytes(24).toString("hex");
  // With require: Miniflare is one 3.8 MB CommonJS file, and an ESM import of it first scans it for
  // named exports (about a second here).
  /** @type {typeof import("miniflare")} */
  const { Miniflare } = createRequire(import.meta.url)("miniflare");
  const mf = new Miniflare({
    modules: true,
    script: KV_OVER_HTTP,
    kvNamespaces: { ROUTES: namespaceId },
    bindings: { TOKEN: token },
    defaultPersistRoot: resolve(persistTo, "v3"),
    kvPersist: true,
    cf: false,
  });
  const url = await mf.ready;
  process.stdout.write(`${JSON.stringify({ url: url.href, token })}\n`);
  process.stdin.on("end", () => void mf.dispose().then(() => process.exit(0)));
  process.stdin.resume();
}

const [persistTo, namespaceId] = process.argv.slice(2);
if (!persistTo || !namespaceId) {
  console.error("usage: node local-kv-host.mjs <persist-to> <namespace id>");
  process.exit(2);
}
serve(persistTo, namespaceId).catch((/** @type {unknown} */ error) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
});
