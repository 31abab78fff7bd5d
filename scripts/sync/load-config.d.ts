import { type EdgeConfig } from "../../src/compile/edge-config";
import type { Manifest } from "../../src/gateway-api/manifest";
import { type SkippedDocument } from "../../src/gateway-api/parse-manifests";
export interface LoadedConfig {
  edge: EdgeConfig;
  manifests: Manifest[];
  skipped: SkippedDocument[];
  /** Cluster folders that the edge settings do not name (ignored). */
  unknownClusterDirs: string[];
}
/** Loads and parses everything; throws UserError on anything that stops the sync. */
export declare function loadConfig(configDir: string): LoadedConfig;
