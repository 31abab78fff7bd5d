/**
 * @module What `sync` and `diff` do before they write or compare: compile the loaded config, plan how the
 * table is stored, report per cluster and object, and for the remote edge check the deployment it is
 * for (the table it serves, its routes, its network bindings, endpoints it could not reach). The
 * result says whether the table may be written and, when not, why and with which exit code.
 */
import type { CompileResult } from "../../src/compile/compile-route-table";
import { compileLoaded } from "../config/compile-loaded";
import type { Diagnostic, ResourceStatus } from "../../src/compile/status/diagnostics";
import type { SkippedDocument } from "../../src/gateway-api/parse-manifests";
import type { RouteTable } from "../../src/table/route-table";
import { planStorage, type ShardLimits, type StoragePlan, type TextFacts } from "../../src/table/shard-table";
import { readWranglerFacts } from "../config/wrangler-config";
import { missingRoutesBlock, tableNameProblem } from "../checks/deployment-checks";
import type { LoadedConfig } from "../config/load-config";
import { networkBindingProblems } from "../checks/network-bindings";
import type { StoreTarget } from "../store/open-store";
import { type ClusterView, clusterViews, count, errorCount, formatReport } from "../report/report";
import { describeUnreachable, type UnreachableEndpoints, unreachableEndpoints } from "../checks/unreachable-endpoints";
import { UserError } from "../lib/user-error";
import { writeStatusFiles } from "../report/write-status";

/** What a sync reports of a compile, as -o json prints it. */
export interface CompileSummary {
  table: { name: string; version: string; rules: number; backends: number; shards: number };
  /** Every configured cluster, with what it contributes. */
  clusters: ClusterView[];
  statuses: ResourceStatus[];
  diagnostics: Diagnostic[];
  skipped: SkippedDocument[];
  tableNameProblem?: string;
  missingRoutes?: string;
  networkBindings?: string[];
  unreachable?: UnreachableEndpoints[];
}

export interface CompiledForEdge {
  result: CompileResult;
  plan: StoragePlan;
  summary: CompileSummary;
  /** The report for a person: per cluster and object, then the counts. */
  report: string[];
  /** Why the table must not be written, when it must not: the exit code and the line that says so. */
  refusal?: { code: 1 | 2; reason: string };
  /** Objects that failed their schema (as the API server would have refused them). */
  invalidObjects: number;
}

export interface CompileChecks {
  /** `--strict`: any error in the report refuses the write (exit 1). */
  strict: boolean;
  /** `--allow-invalid`: objects that fail their schema are left out and the rest is written; otherwise they refuse the write (exit 1). */
  allowInvalid?: boolean;
  shardBytes: number;
  /** `--status-out`: each object's status block is written there as YAML. */
  statusOut?: string;
  /** `--verbose`: the text report shows notes too. */
  verbose?: boolean;
}

/** How the table will be stored (whole or in shards); one KV cannot hold is refused before anything is written (exit 2). */
export function planOrRefuse(table: RouteTable, limits: ShardLimits = {}, facts?: TextFacts): StoragePlan {
  const planned = planStorage(table, limits, facts);
  if (planned.ok) return planned.plan;
  throw new UserError(
    planned.problem,
    "split the clusters' Gateways across several edges (one kedge.yaml and Worker each, different metadata.name); nothing was written",
  );
}

/**
 * Compiles and checks. `note` gets the lines a person should see at once (deployment warnings and
 * refusals); the report comes back for the command's outcome.
 */
export async function compileForEdge(
  loaded: LoadedConfig,
  where: StoreTarget,
  checks: CompileChecks,
  note: (line: string) => void,
  compiled?: CompileResult,
): Promise<CompiledForEdge> {
  const name = loaded.edge.name;
  const result = compiled ?? (await compileLoaded(loaded));
  const plan = planOrRefuse(result.table, { shardBytes: checks.shardBytes }, result);
  if (checks.statusOut) writeStatusFiles(checks.statusOut, result.statuses, loaded.edge.controllerName);
  const names = loaded.edge.clusters.map((c) => c.name);
  const summary: CompileSummary = {
    clusters: clusterViews(result.table, names),
    table: {
      name,
      version: result.table.version,
      rules: result.table.rules.length,
      backends: Object.keys(result.table.backends).length,
      shards: plan.shards.length,
    },
    statuses: result.statuses,
    diagnostics: result.diagnostics,
    skipped: loaded.skipped,
  };
  const report = [
    formatReport({ ...result, skipped: loaded.skipped, clusters: names, verbose: checks.verbose }),
    ...loaded.unknownClusterDirs.map((dir) => `! clusters/${dir}/ is not named in kedge.yaml; ignored`),
  ];
  const invalidObjects = new Set(
    result.diagnostics
      .filter((d) => d.invalidObject)
      .map((d) => `${d.object.cluster}/${d.object.kind}/${d.object.namespace}/${d.object.name}`),
  ).size;
  const compiledForEdge: CompiledForEdge = { result, plan, summary, report, invalidObjects };
  if (where.target === "remote") {
    const refusals = checkDeployment(loaded, result.table, where, summary, note);
    if (refusals > 0)
      return {
        ...compiledForEdge,
        refusal: { code: 2, reason: `--remote: ${count(refusals, "problem")} above would fail requests at the edge; nothing written` },
      };
  }
  if (invalidObjects > 0 && !checks.allowInvalid)
    return {
      ...compiledForEdge,
      refusal: {
        code: 1,
        reason:
          invalidObjects === 1
            ? "1 object above fails its schema, as the API server would have refused it; nothing written (fix it, or pass --allow-invalid to push the rest)"
            : `${invalidObjects} objects above fail their schema, as the API server would have refused them; nothing written (fix them, or pass --allow-invalid to push the rest)`,
      },
    };
  const errors = errorCount(result.diagnostics);
  if (checks.strict && errors > 0)
    return { ...compiledForEdge, refusal: { code: 1, reason: `--strict: ${count(errors, "error")} above; nothing written` } };
  return compiledForEdge;
}

/**
 * The deployed Worker: does it serve this table, do its routes bring it these hostnames, can it reach
 * every endpoint? Fills the summary, notes each problem, and returns how many would fail requests.
 */
function checkDeployment(
  loaded: LoadedConfig,
  table: RouteTable,
  where: StoreTarget,
  summary: CompileSummary,
  note: (line: string) => void,
): number {
  const facts = readWranglerFacts(where.wranglerConfig, where.env);
  const described = where.env === undefined ? where.wranglerConfig : `environment "${where.env}" of ${where.wranglerConfig}`;
  const nameProblem = tableNameProblem(facts, loaded.edge.name, described);
  if (nameProblem) {
    summary.tableNameProblem = nameProblem;
    note(`! ${nameProblem}`);
  }
  const routes = missingRoutesBlock(facts, table, where.wranglerConfig, where.env);
  if (routes) {
    summary.missingRoutes = routes;
    note(`! ${routes}`);
  }
  // What the deployed Worker could not reach: a push would turn those requests into errors.
  const networks = networkBindingProblems(loaded.edge, facts, where.wranglerConfig, where.env, described);
  const unreachable = unreachableEndpoints(table);
  summary.networkBindings = networks;
  summary.unreachable = unreachable;
  for (const problem of networks) note(`✗ --remote: ${problem}`);
  for (const u of unreachable) note(`${u.severity === "error" ? "✗" : "!"} --remote: ${describeUnreachable(u)}\n    fix: ${u.fix}`);
  return networks.length + unreachable.filter((u) => u.severity === "error").length;
}
