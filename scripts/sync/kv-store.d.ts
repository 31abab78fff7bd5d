/** @module The few KV operations the sync needs, so local (Miniflare) and remote (wrangler) share one publish path. */
export interface KvStore {
  get(key: string): Promise<string | null>;
  put(key: string, value: string): Promise<void>;
  delete(key: string): Promise<void>;
  /** Releases whatever the store holds open. */
  close(): Promise<void>;
  /** Where this store writes, for messages. */
  readonly description: string;
}
