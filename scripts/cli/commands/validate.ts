/**
 * @module `kedge validate`: the config folder checked as the sync checks it (every object against its
 * schema, then the compile and its report), with nothing else needed: no wrangler config, no KV, no login.
 */
import { compileLoaded } from "../../config/compile-loaded";
import type { Diagnostic, ResourceStatus } from "../../../src/compile/status/diagnostics";
import type { SkippedDocument } from "../../../src/gateway-api/parse-manifests";
import { loadConfig, withLiveClusters } from "../../config/load-config";
import { type ClusterView, clusterViews, errorCount, formatReport } from "../../report/report";
import { command, EXIT } from "../command";
import { OUTPUT_FLAGS, type OutputOptions, VERBOSE_FLAG } from "../flags";

interface ValidateOptions extends OutputOptions {
  config: string;
  verbose?: boolean;
}

export interface ValidateData {
  table: { name: string; version: string; rules: number; backends: number };
  /** Every configured cluster, with what it contributes. */
  clusters: ClusterView[];
  errors: number;
  warnings: number;
  diagnostics: Diagnostic[];
  statuses: ResourceStatus[];
  skipped: SkippedDocument[];
}

export const validateCommand = command<ValidateOptions>({
  name: "validate",
  summary: "check the config folder as a sync would, needing nothing else (no wrangler config, no KV)",
  description:
    "Reads kedge.yaml and every cluster's objects (folders, and live clusters through their API), checks each object against its schema and compiles the table, and prints the report a sync prints. Writes nothing and needs no wrangler config, KV namespace or login.",
  flags: [
    { flags: "--config <dir>", description: "config folder with kedge.yaml and clusters/<name>/", default: "config" },
    ...OUTPUT_FLAGS,
    VERBOSE_FLAG,
  ],
  exitCodes: {
    0: "no errors (warnings allowed)",
    1: "the report has errors: an object refused (its schema, or its references), or a rule or backendRef dropped",
    2: "input that cannot be used (a YAML syntax error, a broken kedge.yaml, a cluster that cannot be read)",
  },
  examples: ["kedge validate", "kedge validate --config config -o json"],
  async run(options, _args, io) {
    const loaded = await withLiveClusters(loadConfig(options.config, { progress: io.progress, once: true }));
    const result = await compileLoaded(loaded);
    const errors = errorCount(result.diagnostics);
    const warnings = result.diagnostics.filter((d) => d.severity === "warning").length + loaded.skipped.length;
    const names = loaded.edge.clusters.map((c) => c.name);
    const data: ValidateData = {
      clusters: clusterViews(result.table, names),
      table: {
        name: result.table.name,
        version: result.table.version,
        rules: result.table.rules.length,
        backends: Object.keys(result.table.backends).length,
      },
      errors,
      warnings,
      diagnostics: result.diagnostics,
      statuses: result.statuses,
      skipped: loaded.skipped,
    };
    const report = formatReport({ ...result, skipped: loaded.skipped, clusters: names, verbose: options.verbose });
    return {
      code: errors > 0 ? EXIT.REFUSED : EXIT.OK,
      data,
      text: [report, "", errors > 0 ? `${options.config}: not valid` : `${options.config}: valid`],
    };
  },
});
