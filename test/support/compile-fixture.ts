/** @module Compiles YAML text (an EdgeConfig plus cluster resources) the way the sync does, for tests. */
import { parse } from "yaml";
import { type CompileOptions, compileRouteTable, type CompileResult } from "../../src/compile/compile-route-table";
import { type EdgeConfig, parseEdgeConfig } from "../../src/compile/input/edge-config";
import { parseManifestFile } from "../../src/gateway-api/parse-manifests";

/** `edge` is kedge.yaml's text (or the settings already read); `clusters` maps a cluster name to its resources' YAML. */
export async function compileYaml(
  edgeYaml: string | EdgeConfig,
  clusters: Record<string, string>,
  options: CompileOptions = {},
): Promise<CompileResult> {
  const edge = typeof edgeYaml === "string" ? parseEdgeConfig(parse(edgeYaml), "kedge.yaml") : edgeYaml;
  const manifests = Object.entries(clusters).flatMap(
    ([cluster, text]) => parseManifestFile(cluster, `clusters/${cluster}/test.yaml`, text).manifests,
  );
  return compileRouteTable(edge, manifests, options);
}
