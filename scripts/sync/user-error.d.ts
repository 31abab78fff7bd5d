/** @module A mistake in the command line or input files: printed with a fix, no stack, exit 2. */
export declare class UserError extends Error {
  readonly hint?: string | undefined;
  name: string;
  constructor(message: string, hint?: string | undefined);
}
