/** @module Reads the config folder: kedge.yaml and one sub-folder per cluster (YAML, JSON, `kind: List`). */
import { existsSync, readdirSync, readFileSync, readlinkSync, realpathSync, statSync } from "node:fs";
import { isAbsolute, join, relative } from "node:path";
import { parse, YAMLError } from "yaml";
import { EdgeConfigError, type EdgeConfig, parseEdgeConfig } from "../../src/compile/input/edge-config";
import { fileLocator } from "../../src/gateway-api/locate";
import type { Manifest } from "../../src/gateway-api/manifest";
import { ManifestSyntaxError, parseManifestFile, type SkippedDocument } from "../../src/gateway-api/parse-manifests";
import type { LiveCluster } from "../kube/read-cluster";
import { packageRoot } from "../lib/package-files";
import { UserError } from "../lib/user-error";
import { ReadBudget, textShape } from "./read-budget";

export interface LoadedConfig {
  edge: EdgeConfig;
  manifests: Manifest[];
  skipped: SkippedDocument[];
  /** Cluster folders that the edge settings do not name (ignored). */
  unknownClusterDirs: string[];
  /** The clusters read through their API (kedge.yaml `kubeContext`), once read: where their status is written back. */
  live: LiveCluster[];
  /** Read for one compile (LoadOptions.once): it lets each route's spec go as it compiles. */
  once?: boolean;
}

const MANIFEST_FILE = /\.(ya?ml|json)$/i;

/**
 * A page of kedge's docs as a path the user can open: `docs/<page>` in this repository, and in a project
 * `node_modules/kedge/docs/<page>` (the package ships its docs); absolute when it is not below the current folder.
 */
function docsPage(page: string): string {
  const file = join(packageRoot(), "docs", page);
  const near = relative(process.cwd(), file);
  return near.startsWith("..") || isAbsolute(near) ? file : near;
}

/**
 * The manifest files under `dir`, in name order. Symbolic links are followed (manifests are often linked
 * in from a shared folder); a file or folder reached twice, through a link or a link loop, is read once.
 * A link to a manifest that does not exist stops the sync: skipping it would drop its routes from the edge.
 */
export function filesUnder(dir: string, seen = new Set<string>()): string[] {
  seen.add(realpathSync(dir));
  return readdirSync(dir, { withFileTypes: true })
    .sort((a, b) => (a.name < b.name ? -1 : 1))
    .flatMap((entry) => {
      const path = join(dir, entry.name);
      let target: { isDirectory(): boolean; isFile(): boolean } = entry;
      if (entry.isSymbolicLink()) {
        const stat = statSync(path, { throwIfNoEntry: false });
        if (!stat) {
          if (!MANIFEST_FILE.test(entry.name)) return [];
          throw new UserError(
            `${path} links to ${readlinkSync(path)}, which does not exist`,
            "fix or remove the link; nothing was written",
          );
        }
        target = stat;
      }
      if (!target.isDirectory() && !(target.isFile() && MANIFEST_FILE.test(entry.name))) return [];
      const real = realpathSync(path);
      if (seen.has(real)) return [];
      seen.add(real);
      return target.isDirectory() ? filesUnder(path, seen) : [path];
    });
}

/** Loads and parses everything; throws UserError on anything that stops the sync. */
/** What a person watching sees of a long read: a line per big file (only on a terminal; the caller decides). */
export interface LoadOptions {
  progress?: (line: string) => void;
  /**
   * The command compiles the objects once and reads their specs no more (sync, validate, diff and explain; not
   * --watch, which compiles them again): the compile lets each route's spec go as it is done
   * (CompileOptions.once), and the read budget counts the smaller peak that makes.
   */
  once?: boolean;
}

/**
 * A file's text again, for the positions a diagnostic asks for, so the text is not kept with every object: read
 * back on the first ask and kept only while memory allows (a weak reference), as a few asks come together.
 */
function rereadable(file: string): () => string {
  let kept: WeakRef<{ text: string }> | undefined;
  return () => {
    const cached = kept?.deref();
    if (cached) return cached.text;
    const held = { text: readFileSync(file, "utf8") };
    kept = new WeakRef(held);
    return held.text;
  };
}

/** Files this big take a second or more to read: a person watching is told, before and after. */
const BIG_FILE = 16 * 2 ** 20;

/**
 * kedge.yaml alone, for the commands that need only the edge settings (the table's name: status, history,
 * rollback): the clusters' objects, which may be a 100 MB dump, are not read.
 */
export function loadEdgeSettings(configDir: string): EdgeConfig {
  return readEdgeSettings(configDir).edge;
}

function readEdgeSettings(configDir: string): { edge: EdgeConfig; edgeFile: string } {
  const found = statSync(configDir, { throwIfNoEntry: false });
  if (!found?.isDirectory()) {
    const problem = found ? `config folder ${configDir} is a file, not a folder` : `config folder ${configDir} does not exist`;
    throw new UserError(problem, "pass --config DIR with kedge.yaml and clusters/<name>/ inside");
  }
  const edgeFile = join(configDir, "kedge.yaml");
  if (!existsSync(edgeFile))
    throw new UserError(
      `${edgeFile} is missing`,
      `create it with apiVersion kedge.dev/v1alpha1, kind EdgeConfig (or run \`kedge init\`; ${docsPage("configuration.md")})`,
    );
  let document: unknown;
  const edgeText = readFileSync(edgeFile, "utf8");
  try {
    document = parse(edgeText, { prettyErrors: true });
  } catch (error) {
    // A YAMLError, or the alias-expansion guard's error for a "billion laughs" file.
    const pos = error instanceof YAMLError ? error.linePos?.[0] : undefined;
    const message = error instanceof Error ? error.message : String(error);
    throw new UserError(
      `${edgeFile}:${pos?.line ?? 1}:${pos?.col ?? 1}: ${message.split("\n")[0]}`,
      "fix the YAML syntax (kedge.yaml holds one document)",
    );
  }
  let edge: EdgeConfig;
  try {
    edge = parseEdgeConfig(document, edgeFile, fileLocator(edgeText)(0));
  } catch (error) {
    if (error instanceof EdgeConfigError)
      throw new UserError(error.message, `fix the edge settings file (${docsPage("configuration.md")})`);
    throw error;
  }
  return { edge, edgeFile };
}

export function loadConfig(configDir: string, options: LoadOptions = {}): LoadedConfig {
  const { edge, edgeFile } = readEdgeSettings(configDir);
  const clustersDir = join(configDir, "clusters");
  const manifests: Manifest[] = [];
  const skipped: SkippedDocument[] = [];
  const memory = new ReadBudget(undefined, { once: options.once });
  for (const cluster of edge.clusters) {
    // A live cluster is read through the Kubernetes API (withLiveClusters), not from a folder.
    if (cluster.kubeContext) continue;
    const dir = join(clustersDir, cluster.name);
    if (!existsSync(dir))
      throw new UserError(
        `cluster ${cluster.name} has no folder ${dir}`,
        `create ${dir} with that cluster's resources, or remove the cluster from ${edgeFile}`,
      );
    for (const file of filesUnder(dir)) {
      const shown = relative(process.cwd(), file) || file;
      try {
        const size = statSync(file).size;
        const { dense, format } = textShape(file, size);
        memory.admit(shown, size, dense, format);
        const started = Date.now();
        if (size >= BIG_FILE) options.progress?.(`reading ${shown} (${Math.round(size / 2 ** 20)} MB)…`);
        const parsed = parseManifestFile(cluster.name, shown, readFileSync(file, "utf8"), { source: rereadable(file) });
        for (const m of parsed.manifests) manifests.push(m);
        for (const s of parsed.skipped) skipped.push(s);
        if (size >= BIG_FILE)
          options.progress?.(`read ${shown}: ${parsed.manifests.length} objects in ${((Date.now() - started) / 1000).toFixed(1)} s`);
      } catch (error) {
        if (error instanceof ManifestSyntaxError)
          throw new UserError(`cluster ${cluster.name}: ${error.message}`, "fix the YAML/JSON syntax at that line; nothing was written");
        throw error;
      }
    }
  }
  const named = new Set(edge.clusters.map((c) => c.name));
  const unknownClusterDirs = existsSync(clustersDir)
    ? readdirSync(clustersDir, { withFileTypes: true })
        .filter((d) => d.isDirectory() && !named.has(d.name))
        .map((d) => d.name)
    : [];
  return { edge, manifests, skipped, unknownClusterDirs, live: [], ...(options.once ? { once: true } : {}) };
}

/** The config with the objects of its live clusters (kedge.yaml `kubeContext`) read through the Kubernetes API. */
export async function withLiveClusters(loaded: LoadedConfig): Promise<LoadedConfig> {
  const live = loaded.edge.clusters.filter((c) => c.kubeContext);
  if (live.length === 0) return loaded;
  const { readLiveCluster } = await import("../kube/read-cluster");
  const read = await Promise.all(live.map((cluster) => readLiveCluster(cluster)));
  return {
    ...loaded,
    manifests: [...loaded.manifests, ...read.flatMap((r) => r.manifests)],
    skipped: [...loaded.skipped, ...read.flatMap((r) => r.skipped)],
    live: read.map(({ api, listings }) => ({ api, listings })),
  };
}
