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

/** The wrangler releases kedge supports: 4.86.0 is the first with `wrangler auth token`; 5 may change it. */
export const WRANGLER_RANGE = { min: [4, 86, 0], below: 5, text: ">=4.86.0 <5" } as const;

/** `bin` is a path or a map of command names to paths (npm's two forms). */
const MANIFEST = obj<{ version: string; bin?: unknown }>({ version: str(), bin: opt(any()) }, { open: true });

export interface WranglerPackage {
  /** The folder of wrangler's package.json. */
  root: string;
  version: string;
  /** wrangler's command, as its package.json `bin` names it: run with this Node (`process.execPath`). */
  bin: string;
}

/** Whether `version` (x.y.z) is in WRANGLER_RANGE. */
export function isSupportedWrangler(version: string): boolean {
  const parts = /^(\d+)\.(\d+)\.(\d+)/.exec(version)?.slice(1).map(Number);
  if (!parts) return false;
  const [major = 0, minor = 0, patch = 0] = parts;
  const [minMajor, minMinor, minPatch] = WRANGLER_RANGE.min;
  if (major >= WRANGLER_RANGE.below) return false;
  if (major !== minMajor) return major > minMajor;
  return minor !== minMinor ? minor > minMinor : patch >= minPatch;
}

/**
 * The wrangler the user's project holds (found from `projectDir` as Node would, then beside kedge), through its
 * public interface: `wrangler/package.json` (which every release exports) and the `bin.wrangler` it names. Null
 * when there is none.
 */
export function findWranglerPackage(projectDir = process.cwd()): WranglerPackage | null {
  for (const from of [join(projectDir, "package.json"), join(packageRoot(), "package.json")]) {
    let manifestPath: string;
    try {
      manifestPath = createRequire(from).resolve("wrangler/package.json");
    } catch {
      continue;
    }
    const manifest = jsonOf(readFileSync(manifestPath, "utf8"), MANIFEST, manifestPath);
    const named = manifest.bin as string | Record<string, unknown> | undefined;
    const bin = typeof named === "string" ? named : named?.wrangler;
    const root = dirname(manifestPath);
    if (typeof bin !== "string" || !existsSync(join(root, bin)))
      throw new UserError(`wrangler ${manifest.version} at ${root} names no \`wrangler\` command in its package.json`, "reinstall it");
    return { root, version: manifest.version, bin: join(root, bin) };
  }
  return null;
}

/** The first place below which `specifier` resolves (the project, then kedge's own place), or null. */
function resolveFromProject(
  specifier: string,
  from = [join(process.cwd(), "package.json"), join(packageRoot(), "package.json")],
): string | null {
  for (const base of from) {
    try {
      return createRequire(base).resolve(specifier);
    } catch {
      // Not below this folder: try the next.
    }
  }
  return null;
}

/** The install line kedge's errors suggest: the release line it is tested with on the Node that runs it. */
const installHint = (): string =>
  Number(process.versions.node.split(".")[0]) >= 22
    ? "npm install --save-dev wrangler@4"
    : "npm install --save-dev wrangler@4.86.0 (newer wrangler needs Node 22.12 or later)";

/**
 * The user's wrangler, checked against the range kedge supports before anything is read or written; `what` is
 * the command that needs it, for the error.
 */
export function wranglerPackage(what: string, projectDir = process.cwd()): WranglerPackage {
  const found = findWranglerPackage(projectDir);
  if (!found) throw new UserError(`${what} needs wrangler, which is not installed in this project or beside kedge`, installHint());
  if (!isSupportedWrangler(found.version))
    throw new UserError(
      `${what}: kedge supports wrangler ${WRANGLER_RANGE.text}, and this project has wrangler ${found.version}; nothing was read or written`,
      installHint(),
    );
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
