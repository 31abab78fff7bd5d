/** @module The one place that builds Workers KV keys (documented in the README's storage section). */
/** How many table versions the sync keeps for `--rollback`. */
export declare const HISTORY_LIMIT = 10;
/** Keys of one named route table. */
export declare const KV_KEYS: {
  /** Immutable blob of one compiled table version. */
  readonly blob: (table: string, version: string) => string;
  /** Pointer to the version the edge serves; written only after its blob was written and read back. */
  readonly current: (table: string) => string;
  /** The kept versions, newest first, for rollback and pruning. */
  readonly history: (table: string) => string;
};
