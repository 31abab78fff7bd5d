// @ts-check
/**
 * @module How the Worker (src/index.ts) is bundled for workerd, one recipe for the package's
 * dist/worker.mjs (scripts/build-package.mjs) and the repository's own runs (local-gateway.ts).
 */

/** esbuild's options for the Worker, without its entry point and output file. */
export const WORKER_BUILD_OPTIONS = /** @type {const} @satisfies {import("esbuild").BuildOptions} */ ({
  bundle: true,
  format: "esm",
  platform: "neutral",
  target: "es2022",
  conditions: ["workerd", "worker", "browser", "import"],
  mainFields: ["module", "main"],
  external: ["cloudflare:*", "node:*"],
  logLevel: "warning",
});
