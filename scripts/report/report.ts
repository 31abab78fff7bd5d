/** @module Prints what the compile found, per cluster and object, the way a controller's status reads. */
import { type Condition, type Diagnostic, type ObjectRef, parentRefText, type ResourceStatus } from "../../src/compile/status/diagnostics";
import type { RouteTable } from "../../src/table/route-table";
import type { SkippedDocument } from "../../src/gateway-api/parse-manifests";

/** Cluster-scoped kinds have no namespace to show. */
const CLUSTER_SCOPED = new Set(["GatewayClass", "Namespace", "Cluster"]);
const objectName = (o: ObjectRef) => `${o.kind} ${CLUSTER_SCOPED.has(o.kind) ? "" : `${o.namespace}/`}${o.name}`;
const where = (o: ObjectRef, at?: Diagnostic["position"]) =>
  o.file ? ` (${o.file}${at ? `:${at.line}:${at.col}` : o.line ? `:${o.line}` : ""})` : "";
const conditionText = (c: Condition) => `${c.type}=${c.status}${c.status === "True" && c.reason === c.type ? "" : ` ${c.reason}`}`;
const SYMBOL = { error: "✗", warning: "!", info: "·" } as const;
export const count = (n: number, noun: string) => `${n} ${noun}${n === 1 ? "" : "s"}`;
/** What the summary counts as errors, and `--strict` refuses on. */
export const errorCount = (diagnostics: Diagnostic[]): number => diagnostics.filter((d) => d.severity === "error").length;

export interface ReportInput {
  table: RouteTable;
  statuses: ResourceStatus[];
  diagnostics: Diagnostic[];
  skipped: SkippedDocument[];
  clusters: string[];
  verbose?: boolean;
}

/** One configured cluster as the reports show it: its state and what it contributes (every cluster counts). */
export interface ClusterView {
  name: string;
  state: "Serving" | "Draining" | "Disabled";
  priority?: number;
  staleSince?: string;
  routes?: number;
  services?: number;
  endpoints?: number;
  readyEndpoints?: number;
  /** Why it takes no traffic, when it takes none. */
  idle?: string;
}

/** Each of `names` (kedge.yaml's clusters, in order) as the table says of it. */
export function clusterViews(table: RouteTable, names: string[]): ClusterView[] {
  return names.map((name) => {
    const c = table.clusters?.[name] ?? {};
    return {
      name,
      state: c.disabled ? "Disabled" : c.draining ? "Draining" : "Serving",
      ...(c.priority ? { priority: c.priority } : {}),
      ...(c.staleSince ? { staleSince: c.staleSince } : {}),
      ...c.account,
    };
  });
}

/** "3 routes, 2 Services, 5 of 6 endpoints ready" (and why it takes no traffic, when it takes none). */
export function clusterViewLine(c: ClusterView): string {
  const counted =
    c.routes === undefined
      ? "not counted (a table written by an older sync)"
      : `${count(c.routes, "route")}, ${count(c.services ?? 0, "Service")}, ${c.readyEndpoints} of ${count(c.endpoints ?? 0, "endpoint")} ready`;
  return [
    c.state,
    counted,
    ...(c.priority ? [`priority ${c.priority}`] : []),
    ...(c.staleSince ? [`API unreachable since ${c.staleSince}`] : []),
    ...(c.idle ? [`no traffic: ${c.idle}`] : []),
  ].join("; ");
}

/**
 * The groups the report shows, in order: kedge.yaml's clusters, then any other cluster an object is told under
 * (a merged backend's `east,west`), so every diagnostic the JSON report has is shown.
 */
function groupsOf(input: ReportInput): string[] {
  const named = new Set(input.clusters);
  const others = [...input.statuses.map((s) => s.object.cluster), ...input.diagnostics.map((d) => d.object.cluster)].filter(
    (c) => !named.has(c),
  );
  return [...input.clusters, ...new Set(others)];
}

/** Up to this many objects, the text report lists every one; above, those with nothing to say are counted. */
export const LIST_EVERY_OBJECT_UP_TO = 200;

/** Objects whose every condition holds (none False or Unknown, no Conflicted) and of which nothing is told. */
function quietObjects(input: ReportInput): Set<ResourceStatus> {
  const told = new Set(input.diagnostics.map((d) => `${d.object.cluster}/${d.object.kind}/${d.object.namespace}/${d.object.name}`));
  const fine = (conditions: Condition[]) =>
    conditions.every((c) => c.status === "True" && c.type !== "Conflicted" && c.type !== "PartiallyInvalid");
  return new Set(
    input.statuses.filter(
      (s) =>
        // A key per object only when something was told: a 100k-route config often tells nothing.
        (told.size === 0 || !told.has(`${s.object.cluster}/${s.object.kind}/${s.object.namespace}/${s.object.name}`)) &&
        fine(s.conditions) &&
        (s.parents ?? []).every((p) => fine(p.conditions)) &&
        (s.listeners ?? []).every((l) => fine(l.conditions)) &&
        !s.aggregate,
    ),
  );
}

/** Human-readable report: what each cluster contributes, then each cluster's objects; the same facts -o json prints. */
export function formatReport(input: ReportInput): string {
  const lines: string[] = [];
  const endpoints = Object.values(input.table.backends).reduce((n, b) => n + b.endpoints.length, 0);
  lines.push(
    `table ${input.table.name}@${input.table.version}: ${input.table.listeners.length} listeners, ${input.table.rules.length} rules, ${Object.keys(input.table.backends).length} backends, ${endpoints} endpoints`,
  );
  const views = clusterViews(input.table, input.clusters);
  const width = Math.max(0, ...views.map((c) => c.name.length));
  lines.push("clusters:", ...views.map((c) => `  ${c.name.padEnd(width)}  ${clusterViewLine(c)}`));
  // A big config lists only the objects with something to say; the others are counted (-o json has each).
  const quiet = input.statuses.length > LIST_EVERY_OBJECT_UP_TO && !input.verbose ? quietObjects(input) : new Set<ResourceStatus>();
  for (const cluster of groupsOf(input)) {
    const all = input.statuses.filter((s) => s.object.cluster === cluster);
    const statuses = all.filter((s) => !quiet.has(s));
    const diagnostics = input.diagnostics.filter((d) => d.object.cluster === cluster && (d.severity !== "info" || input.verbose));
    if (all.length === 0 && diagnostics.length === 0) continue;
    lines.push("", input.clusters.includes(cluster) ? `cluster ${cluster}` : `across clusters ${cluster.replaceAll(",", ", ")}`);
    const counted = new Map<string, number>();
    for (const s of all) if (quiet.has(s)) counted.set(s.object.kind, (counted.get(s.object.kind) ?? 0) + 1);
    for (const [kind, n] of counted)
      lines.push(
        `  ${n.toLocaleString("en-US")} ${kind}${n === 1 ? "" : "s"} accepted, with nothing to say (--verbose or -o json lists each)`,
      );
    for (const s of statuses) {
      lines.push(`  ${objectName(s.object)}  ${s.conditions.map(conditionText).join("  ")}`.trimEnd());
      for (const l of s.listeners ?? [])
        lines.push(`    listener ${l.name}: attachedRoutes=${l.attachedRoutes}  ${l.conditions.map(conditionText).join("  ")}`);
      if (s.aggregate) lines.push(`    aggregate across clusters: ${s.aggregate.clusters.join(", ") || "(none)"}`);
      for (const backend of s.aggregate?.backends ?? []) lines.push(`    backend ${backend}`);
      for (const p of s.parents ?? [])
        lines.push(`    parent ${parentRefText(p.parentRef)}: ${p.conditions.map(conditionText).join("  ")}`);
      if (s.ancestors) {
        const gateways = s.ancestors.map((a) => `Gateway ${a.ancestorRef.namespace}/${a.ancestorRef.name}`).join(", ");
        lines.push(`    used through ${gateways || "no Gateway of this cluster"}`);
      }
    }
    for (const d of diagnostics) {
      lines.push(
        `  ${SYMBOL[d.severity]} ${objectName(d.object)}${d.field ? ` ${d.field}` : ""}: ${d.reason}: ${d.message}${where(d.object, d.position)}`,
      );
    }
  }
  for (const s of input.skipped) lines.push(`! ${s.file}:${s.line}: ${s.message}; skipped`);
  const errors = errorCount(input.diagnostics);
  const warnings = input.diagnostics.filter((d) => d.severity === "warning").length + input.skipped.length;
  const notes = input.verbose ? 0 : input.diagnostics.filter((d) => d.severity === "info").length;
  // Errors, not objects: a route can have several, and one with a dropped rule is still served.
  lines.push(
    "",
    `${count(errors, "error")}, ${count(warnings, "warning")}${notes > 0 ? ` (and ${count(notes, "note")}: --verbose shows them)` : ""}`,
  );
  return lines.join("\n");
}
