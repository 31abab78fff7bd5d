/**
 * @module One way to start Miniflare, whichever release wrangler brought: kedge builds Miniflare 4's options
 * (the shape both the local gateway and its tests are written in), and Miniflare 5, whose options changed shape,
 * is given them through its own converter (`convertV4MiniflareOptions`).
 */
import { createRequire } from "node:module";
import type * as MiniflareModule from "miniflare";
import type { Miniflare, V4MiniflareOptions } from "miniflare";
import { miniflareModulePath } from "../lib/wrangler-package";

/** Miniflare's options in the shape of its release 4; what kedge writes. */
export type MiniflareV4Options = V4MiniflareOptions;

interface MiniflareRelease {
  Miniflare: typeof MiniflareModule.Miniflare;
  /** Present from Miniflare 5 on. */
  convertV4MiniflareOptions?: (options: MiniflareV4Options) => MiniflareModule.MiniflareOptions;
}

/** A starter of Miniflare from the release the user's wrangler brings; `what` names the command for errors. */
export function miniflareStarter(what: string): (options: MiniflareV4Options) => Miniflare {
  // With require: Miniflare is one large CommonJS file, and an ESM import first scans it for named exports.
  const release = createRequire(import.meta.url)(miniflareModulePath(what)) as MiniflareRelease;
  const convert = release.convertV4MiniflareOptions;
  return (options) => new release.Miniflare((convert ? inV5Shape(options, convert) : options) as MiniflareModule.MiniflareOptions);
}

/**
 * Release 4's options in release 5's shape. The converter leaves out where state persists: release 5 keeps it
 * under one `resourcePersistencePath`, in the same `<plugin>/` folders below it that `defaultPersistRoot` had,
 * so state written by either release (or by `wrangler dev --persist-to`) is read by the other.
 */
function inV5Shape(
  options: MiniflareV4Options,
  convert: NonNullable<MiniflareRelease["convertV4MiniflareOptions"]>,
): MiniflareModule.MiniflareOptions {
  // Release 4 logged no request unless given a log; release 5 logs each by default, which would flood `kedge dev`.
  const converted = { ...convert(options), logRequests: false };
  const root = options.defaultPersistRoot;
  return root ? { ...converted, resourcePersistencePath: root } : converted;
}
