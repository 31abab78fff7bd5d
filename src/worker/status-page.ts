/**
 * @module The status page a person reads at a glance (the status path asked for text/html): the table
 * served, requests and error rate per cluster, each backend's traffic split across clusters as a bar, and
 * endpoint health. Each section says where its numbers come from: traffic from the TrafficStore (every
 * isolate's counts), active health from the KV health record, passive ejection from this isolate only.
 * Server-rendered HTML and CSS, no script; the numbers are also in data attributes for tests and tools.
 */
import { type CanaryRecord, figuresText } from "../table/canary";
import type { CompiledCluster, HealthRecord } from "../table/route-table";
import type { TrafficRow } from "./traffic-store";

export interface StatusPageData {
  table: { name: string; version: string };
  /** Minutes of traffic shown, and the rows of those minutes. */
  minutes: number;
  traffic: TrafficRow[];
  /** The KV health record (active checks), if any. */
  health: HealthRecord | null;
  /** Backends of the tables this isolate holds: endpoints with readiness and this isolate's passive view. */
  backends: { id: string; endpoints: { id: string; cluster: string; ready: boolean; ejected: boolean }[] }[];
  /** What the table says of its clusters: what each contributes, draining, disabled, priority, a stale API snapshot. */
  clusters: Record<string, CompiledCluster>;
  /** When the page is made (ms), for the age of a stale snapshot. */
  now: number;
  /** The canary in progress: its record (the last Cron analysis), or the pointer's canary alone before the first. */
  canary?: CanaryRecord | null;
}

/** The canary section: both versions' figures over the same minutes, the thresholds, and the last verdict. */
function canarySection(d: StatusPageData): string {
  const r = d.canary;
  if (!r) return "";
  const c = r.canary;
  const a = c.analysis;
  const row = (role: string, f: { version: string; requests: number; errors: number } | undefined, version: string) =>
    `<tr data-canary-role="${role}" data-version="${escape(version)}" data-requests="${f?.requests ?? 0}" data-errors="${f?.errors ?? 0}"><th>${role}</th><td>${escape(version)}</td><td class="num">${f ? escape(figuresText(f)) : "not analysed yet"}</td></tr>`;
  const verdict = r.ended
    ? `${escape(r.ended.outcome)} by ${escape(r.ended.by)} at ${escape(r.ended.at)}: ${escape(r.ended.reason)}`
    : r.verdict
      ? `${escape(r.verdict.decision)} (analysed ${escape(r.analysedAt ?? "")}): ${escape(r.verdict.reason)}`
      : "no Cron analysis yet";
  return `<h2>Canary</h2>
<p class="source">From the pointer and the canary's record, which the Cron analysis writes each tick from the TrafficStore's counts of both versions over the same minutes. It gets ${c.percent}% of new requests and new sessions; sessions stay on the version they started on until it ends. Promoted after ${Math.round(a.windowMs / 1000)} s with at least ${a.minRequests} requests and an error rate at most ${(a.maxErrorRateIncrease * 100).toFixed(1)} points above the current version's; reverted as soon as it is worse by more.</p>
<table id="canary" data-canary="${escape(c.id)}" data-percent="${c.percent}" data-decision="${escape(r.ended?.outcome ?? r.verdict?.decision ?? "wait")}"><tr><th></th><th>version</th><th class="num">errors of requests</th></tr>
${row("canary", r.figures?.canary, c.version)}
${row("current", r.figures?.current, r.current || d.table.version)}
</table>
<p data-canary-verdict>started ${escape(c.startedAt)} by ${escape(c.by)}; ${verdict}</p>`;
}

/** "4m 10s" */
function age(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  return s < 60 ? `${s}s` : s < 3600 ? `${Math.floor(s / 60)}m ${s % 60}s` : `${Math.floor(s / 3600)}h ${Math.floor((s % 3600) / 60)}m`;
}

/**
 * The clusters section: every configured cluster (the table has an entry for each), serving ones included, with
 * what it contributes (routes, Services, ready of all endpoints) and why one that takes no traffic takes none;
 * a cluster an older table does not list is known by its endpoints.
 */
function clusterStates(d: StatusPageData): string {
  const names = new Set([...Object.keys(d.clusters), ...d.backends.flatMap((b) => b.endpoints.map((e) => e.cluster))]);
  const rows = [...names]
    .sort((a, b) => a.localeCompare(b))
    .map((name) => {
      const c: CompiledCluster = d.clusters[name] ?? {};
      const state = c.disabled ? "disabled: no endpoints" : c.draining ? "draining: pinned sessions only" : "serving";
      const stale = c.staleSince
        ? `API unreachable since ${escape(c.staleSince)} (last snapshot ${age(d.now - Date.parse(c.staleSince))} old)`
        : "current";
      const a = c.account;
      const contributes = a
        ? `<td class="num">${a.routes}</td><td class="num">${a.services}</td><td class="num ${a.readyEndpoints > 0 ? "good" : "bad"}">${a.readyEndpoints} / ${a.endpoints}</td><td class="${a.idle ? "bad" : "good"}">${a.idle ? `no traffic: ${escape(a.idle)}` : "takes traffic"}</td>`
        : `<td class="num">?</td><td class="num">?</td><td class="num">?</td><td>not counted by this table's sync</td>`;
      const counted = a
        ? ` data-routes="${a.routes}" data-services="${a.services}" data-endpoints="${a.endpoints}" data-ready-endpoints="${a.readyEndpoints}"${a.idle ? ` data-idle="${escape(a.idle)}"` : ""}`
        : "";
      return `<tr data-cluster-state="${escape(name)}" data-draining="${c.draining ? "true" : "false"}" data-disabled="${c.disabled ? "true" : "false"}" data-priority="${c.priority ?? 0}"${c.staleSince ? ` data-stale-since="${escape(c.staleSince)}"` : ""}${counted}>
  <th>${escape(name)}</th><td class="${c.disabled || c.draining ? "bad" : "good"}">${state}</td><td class="num">${c.priority ?? 0}</td>${contributes}<td class="${c.staleSince ? "bad" : "good"}">${stale}</td></tr>`;
    });
  if (rows.length === 0) return "";
  return `<h2>Clusters</h2>
<p class="source">From the table: every configured cluster, kedge.yaml's state and failover priority (0 first), what it contributes as the sync counted it (routes with a copy in it, its Services in the table, ready of all its endpoints), and whether the sync still hears its API.</p>
<table id="cluster-states"><tr><th>cluster</th><th>state</th><th class="num">priority</th><th class="num">routes</th><th class="num">Services</th><th class="num">ready / endpoints</th><th>traffic</th><th>API snapshot</th></tr>
${rows.join("\n")}
</table>`;
}

const escape = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

const COLOURS = ["#2f6fdf", "#e8833a", "#3aa76d", "#b04fd1", "#d64545", "#8c8c2a"];

const percent = (part: number, whole: number): string => (whole > 0 ? `${((part / whole) * 100).toFixed(1)}%` : "0%");

/** Requests and errors of `rows`, added up by `key`. */
function sum(rows: TrafficRow[], key: (row: TrafficRow) => string): Map<string, { requests: number; errors: number }> {
  const totals = new Map<string, { requests: number; errors: number }>();
  for (const row of rows) {
    const t = totals.get(key(row)) ?? { requests: 0, errors: 0 };
    t.requests += row.requests;
    t.errors += row.errors;
    totals.set(key(row), t);
  }
  return totals;
}

export function statusPage(d: StatusPageData): string {
  const clusters = [...sum(d.traffic, (r) => r.cluster || "(the gateway itself)").entries()].sort(([a], [b]) => a.localeCompare(b));
  const colourOf = new Map(clusters.map(([c], i) => [c, COLOURS[i % COLOURS.length]!]));
  const peak = Math.max(1, ...clusters.map(([, t]) => t.requests));
  const clusterRows = clusters
    .map(
      ([cluster, t]) => `<tr data-cluster="${escape(cluster)}" data-requests="${t.requests}" data-errors="${t.errors}">
  <th>${escape(cluster)}</th><td class="num">${t.requests}</td><td class="num">${t.errors} (${percent(t.errors, t.requests)})</td>
  <td class="bar"><span style="width:${((t.requests / peak) * 100).toFixed(1)}%;background:${colourOf.get(cluster)}"></span></td></tr>`,
    )
    .join("\n");
  const backends = [...new Set(d.traffic.filter((r) => r.backend).map((r) => r.backend))].sort();
  const splits = backends
    .map((backend) => {
      const parts = [
        ...sum(
          d.traffic.filter((r) => r.backend === backend),
          (r) => r.cluster,
        ).entries(),
      ].sort(([a], [b]) => a.localeCompare(b));
      const total = parts.reduce((n, [, t]) => n + t.requests, 0);
      const segments = parts
        .map(
          ([cluster, t]) =>
            `<span class="segment" data-cluster="${escape(cluster)}" data-requests="${t.requests}" style="width:${percent(t.requests, total)};background:${colourOf.get(cluster)}" title="${escape(cluster)}: ${t.requests}">${escape(cluster)} ${percent(t.requests, total)}</span>`,
        )
        .join("");
      return `<div class="split" data-backend="${escape(backend)}" data-requests="${total}"><div class="name">${escape(backend)} <small>${total} requests</small></div><div class="stack">${segments}</div></div>`;
    })
    .join("\n");
  const unhealthy = new Set(d.health?.unhealthy ?? []);
  const endpoints = d.backends
    .map(
      (b) => `<tr><th colspan="4">${escape(b.id)}</th></tr>
${b.endpoints
  .map(
    (e) =>
      `<tr data-endpoint="${escape(e.id)}"><td>${escape(e.id)}</td><td>${e.ready ? "ready" : "not ready"}</td><td class="${unhealthy.has(e.id) ? "bad" : "good"}">${unhealthy.has(e.id) ? "unhealthy" : "healthy"}</td><td class="${e.ejected ? "bad" : "good"}">${e.ejected ? "ejected" : "in"}</td></tr>`,
  )
  .join("\n")}`,
    )
    .join("\n");
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>kedge: ${escape(d.table.name)}</title>
<style>
body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222;max-width:960px}
h1{font-size:20px;margin:0 0 4px}h2{font-size:16px;margin:24px 0 4px}.source{color:#666;margin:0 0 8px;font-size:12px}
table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:4px 8px;border-bottom:1px solid #eee}.num{text-align:right;font-variant-numeric:tabular-nums}
.bar{width:50%}.bar span{display:block;height:14px;border-radius:2px}
.split{margin:8px 0}.split .name{font-family:monospace;font-size:12px}.stack{display:flex;height:22px;border-radius:3px;overflow:hidden;background:#eee}
.segment{color:#fff;font-size:11px;line-height:22px;padding-left:6px;white-space:nowrap;overflow:hidden}
.good{color:#2a7a3b}.bad{color:#c0392b;font-weight:600}
</style></head><body>
<h1>kedge — table ${escape(d.table.name)}@${escape(d.table.version)}</h1>
${canarySection(d)}
${clusterStates(d)}
<h2>Requests per cluster, last ${d.minutes} minutes</h2>
<p class="source">From the TrafficStore: every isolate's counts, sent at most every 10 s (an evicted isolate's last counts are lost).</p>
<table id="clusters"><tr><th>cluster</th><th class="num">requests</th><th class="num">5xx</th><th></th></tr>
${clusterRows || '<tr><td colspan="4">no requests counted yet</td></tr>'}
</table>
<h2>Traffic split per backend across clusters</h2>
<p class="source">Same source: which cluster answered each backend's requests.</p>
<div id="splits">${splits || "<p>no backend traffic yet</p>"}</div>
<h2>Endpoint health</h2>
<p class="source">Active checks: the KV health record${d.health ? ` of ${escape(d.health.updatedAt)}` : " (none yet)"}, shared by every isolate. Passive ejection: this isolate only.</p>
<table id="endpoints"><tr><th>endpoint</th><th>readiness</th><th>active</th><th>passive</th></tr>
${endpoints}
</table>
</body></html>`;
}
