/**
 * @module Local KV: the same on-disk state `wrangler dev --persist-to DIR` reads (DIR/v3/kv/<namespace id>),
 * written through Miniflare so the format is exactly workerd's.
 */
import { createRequire } from "node:module";
import type * as MiniflareModule from "miniflare";
import { resolve } from "node:path";
import type { KvStore } from "./kv-store";

export async function openLocalKv(persistTo: string, namespaceId: string): Promise<KvStore> {
  const root = resolve(persistTo, "v3");
  // Loaded only here, and with require: Miniflare is one 3.8 MB CommonJS file, and an ESM import of it
  // first scans it for named exports (about a second here); a --remote push needs none of it.
  const { Miniflare } = createRequire(import.meta.url)("miniflare") as typeof MiniflareModule;
  const mf = new Miniflare({
    modules: true,
    script: "export default { fetch() { return new Response(null, { status: 204 }); } }",
    kvNamespaces: { ROUTES: namespaceId },
    defaultPersistRoot: root,
    kvPersist: true,
    cf: false,
    log: undefined,
  });
  await mf.ready;
  const kv = await mf.getKVNamespace("ROUTES");
  return {
    description: `local state ${root} (namespace ${namespaceId})`,
    get: (key) => kv.get(key, "text"),
    put: (key, value) => kv.put(key, value),
    delete: (key) => kv.delete(key),
    close: () => mf.dispose(),
  };
}
