// @ts-check
/**
 * @module Runs a TypeScript command as one esbuild bundle: `node scripts/run-bundled.mjs <entry.ts> [args]`.
 *
 * For the commands a user waits on (`npm run sync`): tsx hands each module to its loader thread and
 * starts the sync in about 0.8 s here; a bundle of the same ~50 modules loads in about 0.3 s. Packages
 * stay external (read from node_modules as usual) but for the small pure-JavaScript ones in INLINED. The
 * bundle is cached under node_modules/.cache/kedge and rebuilt when any file it was built from, or this
 * file, is newer than it.
 *
 * Each bundled module keeps its own `import.meta.url` and `import.meta.dirname` (a bundle would otherwise
 * give every module the bundle's), so paths next to a source file resolve the same bundled or not.
 */
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = resolve(import.meta.dirname, "..");
const CACHE = join(ROOT, "node_modules", ".cache", "kedge");

/** @param {string} path */
const mtimeOf = (path) => statSync(path, { throwIfNoEntry: false })?.mtimeMs ?? Infinity;

/**
 * Whether the bundle is older than this file or any input it was built from (listed beside it).
 * @param {string} bundle
 * @param {string} inputsFile
 */
function isStale(bundle, inputsFile) {
  const built = statSync(bundle, { throwIfNoEntry: false })?.mtimeMs;
  if (built === undefined) return true;
  let inputs;
  try {
    inputs = /** @type {string[]} */ (JSON.parse(readFileSync(inputsFile, "utf8")));
  } catch {
    return true;
  }
  return [fileURLToPath(import.meta.url), ...inputs].some((input) => mtimeOf(input) >= built);
}

/**
 * Packages bundled in: yaml is ~90 CommonJS files that take about 60 ms to load one by one and about
 * 20 ms as part of the bundle. The others (Miniflare, wrangler, esbuild) are large or native; they load
 * from node_modules, and only where a command needs them.
 */
const INLINED = new Set(["yaml", "js-yaml", "smol-toml"]);

/** @param {string} specifier */
const packageName = (specifier) =>
  specifier
    .split("/")
    .slice(0, specifier.startsWith("@") ? 2 : 1)
    .join("/");

/** @type {import("esbuild").Plugin} */
const externalPackages = {
  name: "external-packages",
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, ({ path }) => (INLINED.has(packageName(path)) ? undefined : { path, external: true }));
  },
};

/** @type {import("esbuild").Plugin} */
const ownImportMeta = {
  name: "own-import-meta",
  setup(build) {
    build.onLoad({ filter: /\.ts$/ }, async ({ path }) => ({
      loader: "ts",
      contents: (await readFile(path, "utf8"))
        .replaceAll("import.meta.url", JSON.stringify(pathToFileURL(path).href))
        .replaceAll("import.meta.dirname", JSON.stringify(dirname(path))),
    }));
  },
};

/**
 * @param {string} entry
 * @param {string} bundle
 * @param {string} inputsFile
 */
async function rebuild(entry, bundle, inputsFile) {
  // Loaded only to rebuild: importing esbuild alone costs about 60 ms.
  const { build } = await import("esbuild");
  const result = await build({
    entryPoints: [entry],
    outfile: bundle,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    sourcemap: "linked",
    // CommonJS code bundled in (yaml) requires Node's builtins; an ES module has no `require` of its own.
    banner: {
      js: 'import { createRequire as __bundledCreateRequire } from "node:module"; const require = __bundledCreateRequire(import.meta.url);',
    },
    metafile: true,
    write: false,
    plugins: [externalPackages, ownImportMeta],
    logLevel: "warning",
  });
  // Each file replaced whole (write, then rename): a command started meanwhile reads the old or the new.
  const replace = (/** @type {string} */ path, /** @type {string | Uint8Array} */ contents) => {
    writeFileSync(`${path}.${process.pid}`, contents);
    renameSync(`${path}.${process.pid}`, path);
  };
  for (const file of result.outputFiles) if (file.path !== bundle) replace(file.path, file.contents);
  replace(bundle, result.outputFiles.find((f) => f.path === bundle)?.contents ?? "");
  replace(inputsFile, JSON.stringify(Object.keys(result.metafile.inputs).map((input) => resolve(ROOT, input))));
}

const [entryArg, ...args] = process.argv.slice(2);
if (!entryArg) {
  console.error("usage: node scripts/run-bundled.mjs <entry.ts> [args...]");
  process.exit(2);
}
const entry = resolve(entryArg);
mkdirSync(CACHE, { recursive: true });
// Named by the entry's path too: two entries called sync.ts must not share (and run) one bundle.
const bundle = join(CACHE, `${basename(entry, ".ts")}-${createHash("sha256").update(entry).digest("hex").slice(0, 8)}.mjs`);
const inputsFile = `${bundle}.inputs.json`;
if (isStale(bundle, inputsFile)) await rebuild(entry, bundle, inputsFile);
// The command sees its own path and arguments, as if run directly; stack traces point into the sources.
process.argv = [process.argv[0] ?? "node", entry, ...args];
process.setSourceMapsEnabled(true);
await import(pathToFileURL(bundle).href);
