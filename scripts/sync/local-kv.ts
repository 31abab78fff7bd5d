/**
 * @module Local KV: the same on-disk state `wrangler dev --persist-to DIR` reads (DIR/v3/kv/<namespace id>),
 * written through Miniflare so the format is exactly workerd's.
 */
import { resolve } from "node:path";
import type { KvStore } from "./kv-store";

export async function openLocalKv(persistTo: string, namespaceId: string): Promise<KvStore> {
  const root = resolve(persistTo, "v3");
  // Loaded only here: importing Miniflare takes over a second, which a --remote push need not pay.
  const { Miniflare } = await import("miniflare");
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
