/**
 * @module The user's wrangler, found the way `npx wrangler` finds it (from the project kedge runs in, else from
 * kedge's own place), and the Miniflare that wrangler brings. kedge reads only what wrangler publishes: its
 * package.json (exported by every release) and its `bin`; it never reaches into wrangler's files, which newer
 * releases close with an `exports` map. Serving locally through wrangler's own Miniflare keeps one workerd per
 * install (Miniflare 4 under wrangler before 4.117, Miniflare 5 from then on).
 */
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { packageRoot } from "./package-files";
import { UserError } from "./user-error";
import { jsonOf } from "./json";
import { any, obj, opt, str } from "../../src/table/structural-schema";

/** The wrangler releases kedge is tested with, at both ends (CI): 4.86.0 on Node 20.19, the latest 4.x on Node 24. */
export const SUPPORTED_WRANGLER = { lowest: [4, 86, 0], below: [5, 0, 0], range: ">=4.86.0 <5" } as const;

/** `bin` is a path or a map of command names to paths (npm's two forms). */
const MANIFEST = obj<{ version?: string; bin?: unknown }>({ version: opt(str()), bin: opt(any()) }, { open: true });

export interface WranglerPackage {
  /** The folder of wrangler's package.json. */
  root: string;
  version: string;
  /** wrangler's command, as its package.json `bin` names it: run with this Node (`process.execPath`). */
  bin: string;
}

/** Where to look, in order: the project the command runs in, then kedge's own place (its node_modules). */
const searchFrom = (): string[] => [join(process.cwd(), "package.json"), join(packageRoot(), "package.json")];

/** The first of `searchFrom` that resolves `specifier`, or null. */
function resolveFromProject(specifier: string, from = searchFrom()): string | null {
  for (const base of from) {
    try {
      return createRequire(base).resolve(specifier);
    } catch {
      // Not below this folder: try the next.
    }
  }
  return null;
}

const versionParts = (version: string): number[] => version.split(/[.+-]/).slice(0, 3).map(Number);
const below = (a: readonly number[], b: readonly number[]): boolean => {
  for (let i = 0; i < 3; i++) if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) < (b[i] ?? 0);
  return false;
};

/** Whether kedge supports this wrangler release (SUPPORTED_WRANGLER). */
export function supportsWrangler(version: string): boolean {
  const parts = versionParts(version);
  if (parts.some(Number.isNaN)) return false;
  return !below(parts, SUPPORTED_WRANGLER.lowest) && below(parts, SUPPORTED_WRANGLER.below);
}

/** The install line kedge's errors suggest: the release line it is tested with on the Node that runs it. */
const installHint = (): string =>
  Number(process.versions.node.split(".")[0]) >= 22
    ? "npm install --save-dev wrangler@4"
    : "npm install --save-dev wrangler@4.86.0 (newer wrangler needs Node 22.12 or later)";

let found: WranglerPackage | undefined;

/**
 * The user's wrangler, checked against the range kedge supports before anything is read or written; `what` is
 * the command that needs it, for the error.
 */
export function wranglerPackage(what: string): WranglerPackage {
  if (found) return found;
  const manifestPath = resolveFromProject("wrangler/package.json");
  if (!manifestPath) throw new UserError(`${what} needs wrangler, which is not installed in this project or beside kedge`, installHint());
  const manifest = jsonOf(readFileSync(manifestPath, "utf8"), MANIFEST, manifestPath);
  const version = manifest.version ?? "unknown";
  if (!supportsWrangler(version))
    throw new UserError(
      `${what}: kedge supports wrangler ${SUPPORTED_WRANGLER.range} (the releases it is tested with), and this project has wrangler ${version}; nothing was read or written`,
      installHint(),
    );
  const named = manifest.bin as string | Record<string, unknown> | undefined;
  const bin = typeof named === "string" ? named : named?.wrangler;
  const root = dirname(manifestPath);
  if (typeof bin !== "string" || !existsSync(join(root, bin)))
    throw new UserError(
      `${what}: wrangler ${version} at ${root} names no \`wrangler\` command in its package.json`,
      "reinstall it: " + installHint(),
    );
  found = { root, version, bin: join(root, bin) };
  return found;
}

/**
 * The Miniflare that the user's wrangler brings (its own dependency), so that `kedge dev` and local state run on
 * the workerd wrangler runs. A Miniflare installed directly in the project is the fallback for a wrangler that
 * cannot be found; none at all is an error naming the install.
 */
export function miniflareModulePath(what: string): string {
  let wranglerRoot: string | undefined;
  try {
    wranglerRoot = wranglerPackage(what).root;
  } catch (error) {
    const direct = resolveFromProject("miniflare");
    if (direct) return direct;
    throw error;
  }
  const path = resolveFromProject("miniflare", [join(wranglerRoot, "package.json")]);
  if (!path) throw new UserError(`${what}: wrangler at ${wranglerRoot} brings no miniflare`, "reinstall it: " + installHint());
  return path;
}
