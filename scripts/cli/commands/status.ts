/**
 * @module `kedge status`: what the edge serves, from KV (local or remote): the table version and when it
 * was written, and per cluster its endpoints, ready or not, and the ones the active health checks call
 * unhealthy (the health record the Worker writes, and when); a canary in progress with both versions' figures
 * from the edge's last Cron analysis (its KV record), or how the last one ended.
 */
import { KV_KEYS } from "../../../src/table/kv-keys";
import { parseHealthRecord } from "../../../src/table/parse-route-table";
import type { ClusterAccount, RollbackMarker, RouteTable } from "../../../src/table/route-table";
import { loadEdgeSettings } from "../../config/load-config";
import { withStore } from "../../store/open-store";
import { readHistory, readPointerWithCanary } from "../../store/publish";
import { readTable } from "../../store/read-table";
import { type CanaryRecord, figuresText } from "../../../src/table/canary";
import { count } from "../../report/report";
import { rollbackLine } from "./history";
import { command, EXIT } from "../command";
import { OUTPUT_FLAGS, type OutputOptions, storeTarget, TARGET_FLAGS, type TargetOptions } from "../flags";

interface ClusterStatus {
  cluster: string;
  endpoints: number;
  ready: number;
  unhealthy: string[];
  draining?: true;
  disabled?: true;
  priority?: number;
  /** The cluster's API stopped answering `sync --watch` then: the table holds its last snapshot. */
  staleSince?: string;
  /** What the cluster contributes, as the sync counted it (absent in a table an older sync wrote). */
  account?: ClusterAccount;
}

export interface StatusData {
  table: string;
  served: string | null;
  since?: string;
  written?: string;
  /** What the served version changed from the one served before it (its history entry's summary). */
  summary?: string;
  /** Set while the served version is a rollback by hand: `sync --watch` does not push over it until the config changes. */
  rolledBack?: RollbackMarker;
  health?: { updatedAt: string } | null;
  /** The canary in progress: what the pointer says of it and the edge's last analysis (figures, verdict). */
  canary?: CanaryRecord;
  /** The canary the pointer named until it ended (promoted or reverted), before the next push folds it in. */
  endedCanary?: CanaryRecord;
  clusters?: ClusterStatus[];
  historyProblem?: string;
}

/** Each cluster's endpoints (each counted once, though several backends share it), ready and unhealthy, and what the table says of it. */
function clusterStatuses(table: RouteTable | null, unhealthy: Set<string>): ClusterStatus[] {
  const byCluster = new Map<string, ClusterStatus>();
  for (const [cluster, facts] of Object.entries(table?.clusters ?? {}))
    byCluster.set(cluster, { cluster, endpoints: 0, ready: 0, unhealthy: [], ...facts });
  const seen = new Set<string>();
  for (const backend of Object.values(table?.backends ?? {}))
    for (const e of backend.endpoints) {
      if (seen.has(e.id)) continue;
      seen.add(e.id);
      const c = byCluster.get(e.cluster) ?? { cluster: e.cluster, endpoints: 0, ready: 0, unhealthy: [], ...table?.clusters?.[e.cluster] };
      c.endpoints++;
      if (e.ready && !e.terminating) c.ready++;
      if (unhealthy.has(e.id)) c.unhealthy.push(e.id);
      byCluster.set(e.cluster, c);
    }
  return [...byCluster.values()].sort((a, b) => a.cluster.localeCompare(b.cluster));
}

/** "3 of 4 endpoints ready, unhealthy: …; draining; priority 1; API unreachable since … (snapshot 4m old)" */
function clusterLine(c: ClusterStatus, now: number): string {
  const parts = [
    c.disabled
      ? "disabled: no endpoints served"
      : `${c.ready} of ${count(c.endpoints, "endpoint")} ready${c.unhealthy.length > 0 ? `, unhealthy: ${c.unhealthy.join(", ")}` : ""}`,
    ...(c.account ? [`${count(c.account.routes, "route")}, ${count(c.account.services, "Service")}`] : []),
    ...(c.draining ? ["draining: pinned sessions only"] : []),
    ...(c.priority ? [`priority ${c.priority}`] : []),
    ...(c.staleSince
      ? [`API unreachable since ${c.staleSince} (snapshot ${Math.round((now - Date.parse(c.staleSince)) / 60_000)} min old)`]
      : []),
    ...(c.account?.idle ? [`no traffic: ${c.account.idle}`] : []),
  ];
  return parts.join("; ");
}

/** The canary's lines: its share and start, both versions' figures over the same minutes, and the verdict. */
function canaryLines(r: CanaryRecord, current: string, now: number): string[] {
  const c = r.canary;
  const a = c.analysis;
  const minutes = Math.max(0, Math.round((now - Date.parse(c.startedAt)) / 60_000));
  // An ended canary is told in the past tense: it no longer takes any share.
  const lines = r.ended
    ? [`  canary ${c.version} (ended): took ${c.percent}% of new requests and sessions from ${c.startedAt}, by ${c.by}`]
    : [
        `  canary ${c.version}: ${c.percent}% of new requests and sessions since ${c.startedAt} (${minutes} min), by ${c.by}`,
        `    promoted after ${Math.round(a.windowMs / 1000)} s with at least ${a.minRequests} canary requests if within ${(a.maxErrorRateIncrease * 100).toFixed(1)} points of ${current}'s error rate; reverted as soon as worse by more`,
      ];
  if (r.figures)
    lines.push(
      `    canary  ${c.version}: ${figuresText(r.figures.canary)} errors of requests`,
      `    current ${current}: ${figuresText(r.figures.current)} errors of requests   (${r.figures.fromMinute} – ${r.figures.toMinute}, as of ${r.analysedAt})`,
    );
  if (r.ended) lines.push(`    ${r.ended.outcome} by ${r.ended.by} at ${r.ended.at}: ${r.ended.reason}`);
  else
    lines.push(
      r.verdict
        ? `    last verdict: ${r.verdict.decision}: ${r.verdict.reason}`
        : "    no Cron analysis yet (the Worker's Cron Trigger runs it once a minute)",
    );
  return lines;
}

export const statusCommand = command<TargetOptions & OutputOptions>({
  name: "status",
  summary: "what the edge serves: table version and age, endpoints per cluster, active health",
  description:
    "Reads what the edge serves from KV: the table version, when it was written and since when it is served, what it changed from the version before, a canary in progress (its share, both versions' requests and errors from the edge's last Cron analysis, the verdict) or how it ended, whether it is a rollback by hand (which `kedge sync --watch` leaves in place until the config changes), and per cluster the endpoints, how many are ready and which ones the active health checks call unhealthy.",
  flags: [...TARGET_FLAGS, ...OUTPUT_FLAGS],
  exitCodes: { 0: "shown (also when the table was never written)", 2: "the config or the store cannot be used" },
  async run(options, _args, io) {
    const name = loadEdgeSettings(options.config).name;
    return withStore(storeTarget(options), "read", { progress: io.progress }, (store) =>
      store.use(async (kv) => {
        const read = await readPointerWithCanary(kv, name);
        const pointer = read?.pointer;
        if (!read || !pointer)
          return {
            code: EXIT.OK,
            data: { table: name, served: null } satisfies StatusData,
            text: [`table ${name} was never written to ${kv.description}`],
          };
        const [table, history, healthText] = await Promise.all([
          readTable(kv, name, pointer.version),
          readHistory(kv, name, { pointer }),
          kv.get(KV_KEYS.health(name)),
        ]);
        const health = parseHealthRecord(healthText === null ? null : JSON.parse(healthText));
        const clusters = clusterStatuses(table, new Set(health?.unhealthy ?? []));
        const entry = history.entries.find((h) => h.version === pointer.version);
        const canary = read.running ? (read.running.record ?? { canary: read.running.canary, current: pointer.version }) : undefined;
        const written = entry?.writtenAt ?? pointer.updatedAt;
        const data: StatusData = {
          table: name,
          served: pointer.version,
          since: pointer.updatedAt,
          written,
          ...(entry?.summary ? { summary: entry.summary } : {}),
          ...(pointer.rolledBack ? { rolledBack: pointer.rolledBack } : {}),
          health: health ? { updatedAt: health.updatedAt } : null,
          ...(canary ? { canary } : {}),
          ...(read.ended ? { endedCanary: read.ended } : {}),
          clusters,
          ...(history.problem ? { historyProblem: history.problem } : {}),
        };
        const text = [
          `table ${name}@${pointer.version} in ${kv.description}, served since ${pointer.updatedAt} (written ${written})`,
          `  ${count(table?.rules.length ?? 0, "rule")}, ${count(Object.keys(table?.backends ?? {}).length, "backend")}; ${history.entries.length} kept versions`,
          ...(entry?.summary ? [`  changed from the version before: ${entry.summary}`] : []),
          ...(pointer.rolledBack ? [`  ! ${rollbackLine(pointer.version, pointer.rolledBack)}`] : []),
          ...(canary ? canaryLines(canary, pointer.version, Date.now()) : []),
          ...(read.ended ? canaryLines(read.ended, read.ended.current, Date.now()) : []),
          ...(history.problem ? [`  ! ${history.problem}`] : []),
          health
            ? `  active health: record of ${health.updatedAt}`
            : "  active health: no record (no Cron Trigger run yet, or nothing ever unhealthy)",
          ...clusters.map((c) => `  cluster ${c.cluster}: ${clusterLine(c, Date.now())}`),
        ];
        return { code: EXIT.OK, data, text };
      }),
    );
  },
});
