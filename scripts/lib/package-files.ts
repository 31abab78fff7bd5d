/**
 * @module Where kedge's own files are, whether it runs from this repository (TypeScript sources, run as
 * bundles by run-bundled.mjs) or from the installed package (dist/, built at pack time): the package root
 * (the folder of kedge's package.json), and peer packages loaded only by the commands that need them, with
 * an error that says how to install one that is missing.
 */
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { UserError } from "./user-error";
import { jsonOf, jsonOrNull } from "./json";
import { any, obj, opt, str } from "../../src/table/structural-schema";

/** What kedge reads of a package.json. */
const PACKAGE_JSON = obj<{ name?: string; version?: string }>({ name: opt(str()), version: opt(str()) }, { open: true });

/** The folder holding kedge's package.json, found upward from `from` (this module's folder, or the bundle's). */
export function packageRoot(from = import.meta.dirname): string {
  for (let dir = from; ; dir = dirname(dir)) {
    const manifest = join(dir, "package.json");
    if (existsSync(manifest) && jsonOrNull(readFileSync(manifest, "utf8"), PACKAGE_JSON)?.name === "kedge") return dir;
    if (dirname(dir) === dir) throw new Error(`no kedge package.json above ${from}`);
  }
}

/** kedge's version, from its package.json. */
export const packageVersion = (): string => {
  const manifest = join(packageRoot(), "package.json");
  return jsonOf(readFileSync(manifest, "utf8"), PACKAGE_JSON, manifest).version ?? "0.0.0";
};

/** Whether kedge runs from its built package (dist/) rather than from this repository's sources. */
export const fromPackage = (): boolean =>
  existsSync(join(packageRoot(), "dist", "worker.mjs")) && !existsSync(join(packageRoot(), "src", "index.ts"));

/**
 * Resolves a peer package (wrangler, miniflare) from kedge's own place, as Node would for kedge; a missing
 * one is a UserError naming the install command.
 */
export function resolvePeer(specifier: string, what: string): string {
  try {
    return createRequire(join(packageRoot(), "package.json")).resolve(specifier);
  } catch {
    const name = specifier.startsWith("@") ? specifier.split("/").slice(0, 2).join("/") : specifier.split("/")[0]!;
    throw new UserError(
      `${what} needs ${name}, which is not installed beside kedge`,
      `npm install ${name === "wrangler" ? "wrangler@4.86.0" : name} (a peer dependency of kedge)`,
    );
  }
}

/** What kedge reads of wrangler's package.json: its version and its `bin`, the public way to run it. */
const WRANGLER_PACKAGE = obj<{ version: string; bin?: unknown }>({ version: str(), bin: opt(any()) }, { open: true });

/** The user's wrangler: where its bin is and which release it is. */
export interface WranglerPackage {
  bin: string;
  version: string;
}

/**
 * The wrangler the user's project holds (found from `projectDir` as Node would, then beside kedge), through its
 * public interface: `wrangler/package.json` (which every release exports) and the `bin.wrangler` it names. Null
 * when there is none.
 */
export function findWranglerPackage(projectDir: string): WranglerPackage | null {
  for (const from of [join(projectDir, "package.json"), join(packageRoot(), "package.json")]) {
    let manifest: string;
    try {
      manifest = createRequire(from).resolve("wrangler/package.json");
    } catch {
      continue;
    }
    const read = jsonOf(readFileSync(manifest, "utf8"), WRANGLER_PACKAGE, manifest);
    const bin =
      typeof read.bin === "string"
        ? read.bin
        : typeof read.bin === "object" && read.bin !== null && "wrangler" in read.bin
          ? read.bin.wrangler
          : undefined;
    if (typeof bin !== "string") throw new Error(`${manifest} names no bin.wrangler`);
    return { bin: join(dirname(manifest), bin), version: read.version };
  }
  return null;
}
