/** @module The one place that builds Workers KV keys (documented in docs/storage.md). */

/** How many table versions the sync keeps for `--rollback`. */
export const HISTORY_LIMIT = 10;

/** Keys of one named route table. */
export const KV_KEYS = {
  /** Immutable blob of one compiled table version. */
  blob: (table: string, version: string): string => `table/${table}/${version}`,
  /** One shard of a sharded table version; written (and read back) before the version's root. */
  shard: (table: string, version: string, shard: number): string => `table/${table}/${version}/shard/${shard}`,
  /** Pointer to the version the edge serves; written only after its blob was written and read back. */
  current: (table: string): string => `table/${table}/current`,
  /** The kept versions, newest first, for rollback and pruning. */
  history: (table: string): string => `table/${table}/history`,
  /** Who is pushing the table now (`kedge sync`'s lease): other pushes wait for it or stop. */
  lease: (table: string): string => `table/${table}/lease`,
  /**
   * One canary's record (canary.ts): its figures and verdict, written by the Worker's Cron analysis each tick, and
   * how it ended (by the edge, `kedge promote`/`rollback`, or a push that replaced it). Keyed by the canary's id,
   * so a decision can only apply to the pointer that started that canary.
   */
  canary: (table: string, id: string): string => `table/${table}/canary/${id}`,
  /** Every key of one table (versions, shards, pointer, history, lease), for listing. */
  tablePrefix: (table: string): string => `table/${table}/`,
  /** Active health-check results, written by the Worker's Cron Trigger, read with the pointer. */
  health: (table: string): string => `health/${table}`,
} as const;

/**
 * Read options by key, for the Worker: how long a Cloudflare location may answer a read from its own
 * cache (KV's default is 60 s). The pointer and the health record change, so they use the shortest KV
 * allows (30 s): a push or rollback reaches every location within that plus TABLE_REFRESH_SECONDS. A
 * version's blob and shards never change once written (the pointer names them only after they were
 * read back), so a location may keep them for a day.
 */
export const KV_READ = {
  changing: { type: "json", cacheTtl: 30 },
  immutable: { type: "json", cacheTtl: 86_400 },
} as const;

/** Workers KV's largest value: a table blob above it cannot be stored. */
export const KV_VALUE_LIMIT_BYTES = 25 * 1024 * 1024;

/**
 * Tables above this size are sharded by host, each shard at most about this size (unless one host alone is
 * larger). A cold isolate reads and prepares one shard for a host it has not served: at 1 MiB that is
 * about 7–12 ms on the development machine (a 4 MiB shard took 50–95 ms). A prepared shard takes about
 * 2.5x its JSON size in isolate memory. Smaller shards mean more KV writes per push (one per shard).
 */
export const DEFAULT_SHARD_BYTES = 1024 * 1024;
