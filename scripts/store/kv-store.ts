/** @module The few KV operations the sync needs, so local (Miniflare) and remote (wrangler) share one publish path. */

/** Bulk operations as one-by-one calls, for a store whose single operations are cheap (local state). */
export const oneByOne = (store: Pick<KvStore, "get" | "put" | "delete">): Pick<KvStore, "putMany" | "getMany" | "deleteMany"> => ({
  async putMany(entries) {
    for (const [key, value] of entries) await store.put(key, value);
  },
  getMany: (keys) => Promise.all(keys.map((key) => store.get(key))),
  async deleteMany(keys) {
    for (const key of keys) await store.delete(key);
  },
});
export interface KvStore {
  get(key: string): Promise<string | null>;
  put(key: string, value: string): Promise<void>;
  delete(key: string): Promise<void>;
  /**
   * Writes several values: one request (or process) per batch where the store has a bulk form. The entries may make
   * their values as they are taken (a push makes each shard's text so): a store takes each as it comes to write it,
   * unless it writes them in batches. Keys are distinct: a store may write several at once, in any order.
   */
  putMany(entries: Iterable<[key: string, value: string]>): Promise<void>;
  /** Deletes several keys (a missing one is no error): one request (or process) per batch where the store has a bulk form. */
  deleteMany(keys: string[]): Promise<void>;
  /** Reads several values, in the order of `keys` (null for a missing key). */
  getMany(keys: string[]): Promise<(string | null)[]>;
  /**
   * The hex SHA-256 of each value's UTF-8 bytes as stored, in the order of `keys` (null for a missing key): read
   * where the values are, so a caller checking what it wrote does not receive every value again. Absent where the
   * store cannot (remote KV: the values are read back).
   */
  digestMany?(keys: string[]): Promise<(string | null)[]>;
  /** The keys that start with `prefix`, in key order. */
  list(prefix: string): Promise<string[]>;
  /** Releases whatever the store holds open. */
  close(): Promise<void>;
  /** Where this store writes, for messages. */
  readonly description: string;
  /**
   * Runs `fn` as the one writer of the store's state, for just that long: local state takes its folder's lock
   * (state-lock.ts), so a `sync --watch` holding the store open leaves room for a rollback between its pushes.
   * Absent where writers take turns by the push lease alone (remote KV), and on a store opened for reading.
   */
  writing?<T>(fn: () => Promise<T>): Promise<T>;
}

/** `fn` as the store's one writer (KvStore.writing), or as it is where the store needs no turn. */
export const asWriter = <T>(kv: KvStore, fn: () => Promise<T>): Promise<T> => (kv.writing ? kv.writing(fn) : fn());
