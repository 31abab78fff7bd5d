/** @module Compiles YAML text (an EdgeConfig plus cluster resources) the way the sync does, for tests. */
import { parse } from "yaml";
import { type CompileOptions, compileRouteTable, type CompileResult } from "../../src/compile/compile-route-table";
import { type EdgeConfig, parseEdgeConfig } from "../../src/compile/input/edge-config";
import { parseManifestFile } from "../../src/gateway-api/parse-manifests";
import { planStorage } from "../../src/table/shard-table";

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

/** The table's text as a push stores it, for a table under the shard size (stored as one value). */
export function storedText(result: CompileResult): string {
  const planned = planStorage(result.table, {}, result);
  if (!planned.ok || planned.plan.shards.length > 0) throw new Error("expected a table stored as one value");
  return planned.plan.root.text;
}
