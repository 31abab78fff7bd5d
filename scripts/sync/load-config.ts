/** @module Reads the config folder: kedge.yaml and one sub-folder per cluster (YAML, JSON, `kind: List`). */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { parse, YAMLError } from "yaml";
import { EdgeConfigError, type EdgeConfig, parseEdgeConfig } from "../../src/compile/edge-config";
import type { Manifest } from "../../src/gateway-api/manifest";
import { ManifestSyntaxError, parseManifestFile, type SkippedDocument } from "../../src/gateway-api/parse-manifests";
import { UserError } from "./user-error";

export interface LoadedConfig {
  edge: EdgeConfig;
  manifests: Manifest[];
  skipped: SkippedDocument[];
  /** Cluster folders that the edge settings do not name (ignored). */
  unknownClusterDirs: string[];
}

const MANIFEST_FILE = /\.(ya?ml|json)$/i;

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .sort((a, b) => (a.name < b.name ? -1 : 1))
    .flatMap((entry) => {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) return filesUnder(path);
      return entry.isFile() && MANIFEST_FILE.test(entry.name) ? [path] : [];
    });
}

/** Loads and parses everything; throws UserError on anything that stops the sync. */
export function loadConfig(configDir: string): LoadedConfig {
  if (!existsSync(configDir) || !statSync(configDir).isDirectory()) {
    throw new UserError(`config folder ${configDir} does not exist`, "pass --config DIR with kedge.yaml and clusters/<name>/ inside");
  }
  const edgeFile = join(configDir, "kedge.yaml");
  if (!existsSync(edgeFile))
    throw new UserError(`${edgeFile} is missing`, "create it with apiVersion kedge.dev/v1alpha1, kind EdgeConfig (see README)");
  let edge: EdgeConfig;
  try {
    edge = parseEdgeConfig(parse(readFileSync(edgeFile, "utf8"), { prettyErrors: true }), edgeFile);
  } catch (error) {
    if (error instanceof EdgeConfigError) throw new UserError(error.message, "fix the edge settings file (see README: config format)");
    if (error instanceof YAMLError) {
      const pos = error.linePos?.[0];
      throw new UserError(
        `${edgeFile}:${pos?.line ?? 1}:${pos?.col ?? 1}: ${error.message.split("\n")[0]}`,
        "fix the YAML syntax (kedge.yaml holds one document)",
      );
    }
    throw error;
  }
  const clustersDir = join(configDir, "clusters");
  const manifests: Manifest[] = [];
  const skipped: SkippedDocument[] = [];
  for (const cluster of edge.clusters) {
    const dir = join(clustersDir, cluster.name);
    if (!existsSync(dir))
      throw new UserError(
        `cluster ${cluster.name} has no folder ${dir}`,
        `create ${dir} with that cluster's resources, or remove the cluster from ${edgeFile}`,
      );
    for (const file of filesUnder(dir)) {
      const shown = relative(process.cwd(), file) || file;
      try {
        const parsed = parseManifestFile(cluster.name, shown, readFileSync(file, "utf8"));
        manifests.push(...parsed.manifests);
        skipped.push(...parsed.skipped);
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
  return { edge, manifests, skipped, unknownClusterDirs };
}
