/**
 * @module The compiler as the CLI runs it: a loaded config's objects compiled, the table's version hashed by
 * Node's SHA-256 as the compiler writes the table's text a piece at a time. Web Crypto (the compiler's own
 * default) takes its input whole: a million-route table's 360 MB of JSON, and as many bytes again.
 */
import { createHash } from "node:crypto";
import { type CompileResult, compileRouteTable, type TextDigest } from "../../src/compile/compile-route-table";
import type { EdgeConfig } from "../../src/compile/input/edge-config";
import type { Manifest } from "../../src/gateway-api/manifest";

/** Node's SHA-256, fed each piece as it comes (a piece is whole JSON tokens: it never splits a surrogate pair). */
export function nodeSha256(): TextDigest {
  const hash = createHash("sha256");
  return { update: (piece) => void hash.update(piece, "utf8"), hex: () => hash.digest("hex") };
}

/**
 * A config read for one compile (LoadOptions.once) lets each route's spec go as it compiles: it is compiled once
 * (a second compile of it would read spent specs, and throws). A command that compiles again reads without once.
 */
export function compileLoaded(loaded: { edge: EdgeConfig; manifests: Manifest[]; once?: boolean }): Promise<CompileResult> {
  return compileRouteTable(loaded.edge, loaded.manifests, { digest: nodeSha256, once: loaded.once });
}
