/** @module The few KV operations the sync needs, so local (Miniflare) and remote (wrangler) share one publish path. */

/** Bulk operations as one-by-one calls, for a store whose single operations are cheap (local state). */
export const oneByOne = (store: Pick<KvStore, "get" | "put">): Pick<KvStore, "putMany" | "getMany"> => ({
  async putMany(entries) {
    for (const [key, value] of entries) await store.put(key, value);
  },
  getMany: (keys) => Promise.all(keys.map((key) => store.get(key))),
});
export interface KvStore {
  get(key: string): Promise<string | null>;
  put(key: string, value: string): Promise<void>;
  delete(key: string): Promise<void>;
  /** Writes several values: one request (or process) per batch where the store has a bulk form. */
  putMany(entries: [key: string, value: string][]): Promise<void>;
  /** Reads several values, in the order of `keys` (null for a missing key). */
  getMany(keys: string[]): Promise<(string | null)[]>;
  /** The keys that start with `prefix`, in key order. */
  list(prefix: string): Promise<string[]>;
  /** Releases whatever the store holds open. */
  close(): Promise<void>;
  /** Where this store writes, for messages. */
  readonly description: string;
}
