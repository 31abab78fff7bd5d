/** @module The one place that builds Workers KV keys (documented in the README's storage section). */

/** How many table versions the sync keeps for `--rollback`. */
export const HISTORY_LIMIT = 10;

/** Keys of one named route table. */
export const KV_KEYS = {
  /** Immutable blob of one compiled table version. */
  blob: (table: string, version: string): string => `table/${table}/${version}`,
  /** Pointer to the version the edge serves; written only after its blob was written and read back. */
  current: (table: string): string => `table/${table}/current`,
  /** The kept versions, newest first, for rollback and pruning. */
  history: (table: string): string => `table/${table}/history`,
  /** Active health-check results, written by the Worker's Cron Trigger, read with the pointer. */
  health: (table: string): string => `health/${table}`,
} as const;

/** Workers KV's largest value: a table blob above it cannot be stored. */
export const KV_VALUE_LIMIT_BYTES = 25 * 1024 * 1024;
