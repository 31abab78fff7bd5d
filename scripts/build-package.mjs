// @ts-check
/**
 * @module What the package ships, built when it is packed (`npm pack` and `npm publish` run this as
 * `prepack`): nothing is compiled at run time and nothing is written inside node_modules.
 *   dist/cli.mjs      the `kedge` command: scripts/cli/main.ts and everything it imports, in one file; only
 *                     @kubernetes/client-node (a dependency) and the peers wrangler and miniflare stay outside
 *   dist/worker.mjs   the Worker (src/index.ts) for workerd, hono included: the `main` of a project's wrangler config
 *   dist/local-kv-host.mjs, dist/network-stand-in-worker.mjs   the helpers the CLI starts beside it
 *   dist/templates/   what `kedge init` writes
 */
import { chmodSync, cpSync, mkdirSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { build } from "esbuild";
import { WORKER_BUILD_OPTIONS } from "./dev/worker-build.mjs";

const ROOT = resolve(import.meta.dirname, "..");
const DIST = join(ROOT, "dist");

rmSync(DIST, { recursive: true, force: true });
mkdirSync(DIST, { recursive: true });

await build({
  entryPoints: [join(ROOT, "scripts", "cli", "main.ts")],
  outfile: join(DIST, "cli.mjs"),
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  // Packages that are dependencies or peers of the installed package; esbuild is only the repository's.
  external: ["@kubernetes/client-node", "wrangler", "miniflare", "esbuild"],
  // CommonJS bundled in (yaml, commander) requires Node's builtins; an ES module has no `require` of its own.
  banner: {
    js: '#!/usr/bin/env node\nimport { createRequire as __kedgeRequire } from "node:module"; const require = __kedgeRequire(import.meta.url);',
  },
  legalComments: "linked",
  logLevel: "warning",
});
chmodSync(join(DIST, "cli.mjs"), 0o755);

await build({
  ...WORKER_BUILD_OPTIONS,
  entryPoints: [join(ROOT, "src", "index.ts")],
  outfile: join(DIST, "worker.mjs"),
  legalComments: "linked",
});

cpSync(join(ROOT, "scripts", "store", "local-kv-host.mjs"), join(DIST, "local-kv-host.mjs"));
cpSync(join(ROOT, "scripts", "dev", "network-stand-in-worker.mjs"), join(DIST, "network-stand-in-worker.mjs"));
cpSync(join(ROOT, "scripts", "cli", "templates"), join(DIST, "templates"), { recursive: true });
console.log(`built ${DIST}: cli.mjs, worker.mjs, helpers and templates`);
