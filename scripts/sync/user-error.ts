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
