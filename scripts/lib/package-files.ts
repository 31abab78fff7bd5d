/**
 * @module Where kedge's own files are, whether it runs from this repository (TypeScript sources, run as
 * bundles by run-bundled.mjs) or from the installed package (dist/, built at pack time): the package root
 * (the folder of kedge's package.json) and its version.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { jsonOf, jsonOrNull } from "./json";
import { obj, opt, str } from "../../src/table/structural-schema";

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
