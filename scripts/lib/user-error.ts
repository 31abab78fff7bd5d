/** @module A mistake in the command line or input files: printed with a fix, no stack, exit 2. */
export class UserError extends Error {
  override name = "UserError";
  constructor(
    message: string,
    readonly hint?: string,
  ) {
    super(message);
  }
}

/**
 * A store (local state or remote KV) that failed under the sync: what failed and why, with a fix, exit 2.
 * Not a bug: a disk, a lock, a network or a login. The pointer was not moved past what was written.
 */
export class StorageError extends UserError {
  override name = "StorageError";
}
