/** @module Compiles YAML text (an EdgeConfig plus cluster resources) the way the sync does, for tests. */
import { parse } from "yaml";
import { compileRouteTable, type CompileResult } from "../../src/compile/compile-route-table";
import { parseEdgeConfig } from "../../src/compile/input/edge-config";
import { parseManifestFile } from "../../src/gateway-api/parse-manifests";

/** `clusters` maps a cluster name to its resources' YAML. */
export async function compileYaml(edgeYaml: string, clusters: Record<string, string>): Promise<CompileResult> {
  const edge = parseEdgeConfig(parse(edgeYaml), "kedge.yaml");
  const manifests = Object.entries(clusters).flatMap(
    ([cluster, text]) => parseManifestFile(cluster, `clusters/${cluster}/test.yaml`, text).manifests,
  );
  return compileRouteTable(edge, manifests);
}
