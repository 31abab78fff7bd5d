/**
 * @module End-to-end throughput: kedge (with a 10k-route table), a bare pass-through Worker, and the same
 * bare Worker doing the header work a correct proxy does, served by one Miniflare, in front of one loopback
 * origin; and kedge sending to that origin through a VPC network binding's local stand-in instead of fetch(). Many short runs alternate, and each ratio is the
 * median of the ratios within a round, so a slow spell of the shared machine hits both sides of a ratio.
 * The runtime's CPU time per request (workerd, all threads) is reported too: it is the steadier figure.
 * The load generator is a closed loop of keep-alive HTTP clients on 127.0.0.1, bounded in time. Last, the same
 * kedge targets while a config canary runs (the pointer names a second version at 10%): each request then draws
 * its version, and a sticky one reads its session's version from its pin; both tables are held prepared.
 */
import { Agent, request } from "node:http";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { V4WorkerOptions as WorkerOptions } from "miniflare";
import { gatewayWorkerOptions, startLocalGateway } from "../../dev/local-gateway";
import { startOrigin } from "../../dev/origin-server";
import { canonicalJson } from "../../../src/table/canonical-json";
import { KV_KEYS } from "../../../src/table/kv-keys";
import type { RouteTable } from "../../../src/table/route-table";
import { compileBenchTable } from "./matcher-bench";
import { hostOf } from "./route-tables";
import { childCpuClock } from "./process-cpu";
import { median, percentile } from "./stats";

export interface ThroughputFigure {
  target: string;
  rps: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  /** workerd CPU milliseconds per request, ×1000 (all threads); absent off Linux. */
  cpuUsPerRequest?: number;
  /** Median over rounds of this target's req/s ÷ the bare Worker's in the same round. */
  vsBare: number;
  /** The same against kedge without sessions. */
  vsKedge: number;
  /** The same against the bare Worker that also does a proxy's header work. */
  vsHeaderWork: number;
}

interface Target {
  name: string;
  host: string;
  path: string;
  cookie?: string;
}

function get(port: number, agent: Agent, target: Target): Promise<{ status: number; setCookie?: string }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { host: target.host };
    if (target.cookie) headers.cookie = target.cookie;
    const req = request({ host: "127.0.0.1", port, path: target.path, agent, headers }, (res) => {
      res.resume();
      res.on("end", () => resolve({ status: res.statusCode ?? 0, setCookie: res.headers["set-cookie"]?.[0] }));
    });
    req.on("error", reject);
    req.end();
  });
}

async function run(port: number, target: Target, seconds: number, concurrency: number) {
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  const latencies: number[] = [];
  let errors = 0;
  const end = performance.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < end) {
        const t = performance.now();
        try {
          const { status } = await get(port, agent, target);
          if (status !== 200) errors++;
        } catch {
          errors++;
        }
        latencies.push(performance.now() - t);
      }
    }),
  );
  agent.destroy();
  return { rps: latencies.length / seconds, latencies, errors };
}

const BENCH_NETWORK = "VPC_BENCH";
const PRIVATE_POD = "10.99.0.1";
/** The route whose backend is moved behind the network binding (its own Service: no other target uses it). */
const NETWORK_ROUTE = 4322;

/** The table with route `i`'s backend reached through the bench's network binding, at a private address. */
function reachThroughNetwork(table: RouteTable, i: number): RouteTable {
  const match = table.matches.find((m) => m.id.includes(`/r${i}/`));
  const backendId = match && table.rules[match.rule]?.backendRefs[0]?.backend;
  const backend = backendId ? table.backends[backendId] : undefined;
  if (!backend) throw new Error(`bench route r${i} has no backend`);
  backend.endpoints = backend.endpoints.map((e) => ({
    ...e,
    id: `${e.cluster}/${PRIVATE_POD}:8080`,
    host: PRIVATE_POD,
    port: 8080,
    network: BENCH_NETWORK,
  }));
  return table;
}

export async function benchThroughput(options: { seconds: number; rounds: number; concurrency: number }): Promise<ThroughputFigure[]> {
  const origin = await startOrigin({ cluster: "bench", endpoint: "origin", backends: ["bench"] });
  const state = mkdtempSync(join(tmpdir(), "kedge-bench-"));
  const bare: WorkerOptions = {
    name: "bare",
    modules: true,
    // The same runtime behaviour as kedge's Worker.
    compatibilityDate: gatewayWorkerOptions("").compatibilityDate,
    script: `export default { fetch(req) { const u = new URL(req.url); return fetch("http://127.0.0.1:${origin.port}" + u.pathname + u.search, { method: req.method, headers: req.headers, body: req.body }); } }`,
    routes: ["bare.bench/*"],
  };
  // The same pass-through plus the header work any correct proxy does (what kedge's own headers cost, without
  // its routing): hop-by-hop headers dropped both ways, X-Forwarded-* and a request id set, the response re-wrapped.
  const hygienic: WorkerOptions = {
    name: "hygienic",
    modules: true,
    compatibilityDate: bare.compatibilityDate,
    script: `const HOP = ["connection", "keep-alive", "proxy-connection", "proxy-authenticate", "proxy-authorization", "te", "trailer", "transfer-encoding", "upgrade"];
export default { async fetch(req) {
  const u = new URL(req.url);
  const id = req.headers.get("cf-ray") ?? crypto.randomUUID();
  const headers = new Headers(req.headers);
  for (const name of HOP) headers.delete(name);
  const client = req.headers.get("cf-connecting-ip");
  if (client) headers.set("x-forwarded-for", client);
  headers.set("x-forwarded-proto", u.protocol.slice(0, -1));
  headers.set("x-forwarded-host", u.hostname);
  headers.set("x-request-id", id);
  const answer = await fetch("http://127.0.0.1:${origin.port}" + u.pathname + u.search, { method: req.method, headers, body: req.body });
  const response = new Response(answer.body, answer);
  for (const name of HOP) response.headers.delete(name);
  response.headers.set("x-request-id", id);
  return response;
} }`,
    routes: ["hygienic.bench/*"],
  };
  const gateway = await startLocalGateway({
    persistTo: state,
    vars: { KEDGE_TABLE: "bench", TABLE_REFRESH_SECONDS: "5" },
    extraWorkers: [bare, hygienic],
    // A private pod behind a VPC network binding: its stand-in sends the address to the same origin.
    networks: { [BENCH_NETWORK]: { [`${PRIVATE_POD}:8080`]: `127.0.0.1:${origin.port}` } },
  });
  try {
    // 10k routes over 1k hosts; odd routes keep cookie sessions, so one table serves both comparisons.
    const table = reachThroughNetwork(await compileBenchTable("prefix", 10_000, true, origin.port), NETWORK_ROUTE);
    const kv = await gateway.miniflare.getKVNamespace("ROUTES");
    await kv.put(KV_KEYS.blob(table.name, table.version), canonicalJson(table));
    await kv.put(
      KV_KEYS.current(table.name),
      JSON.stringify({ version: table.version, schemaVersion: table.schemaVersion, updatedAt: new Date().toISOString() }),
    );
    const port = Number(gateway.url.port);
    const kedge: Target = { name: "kedge (10k routes)", host: hostOf(4320, 1000), path: "/api/v4320/item" };
    const bareTarget: Target = { name: "bare pass-through Worker", host: "bare.bench", path: "/api/v4320/item" };
    const hygienicTarget: Target = { name: "bare Worker + proxy header work", host: "hygienic.bench", path: "/api/v4320/item" };
    const stickyRoute = { host: hostOf(4321, 1000), path: "/api/v4321/item" };
    const warm = new Agent({ keepAlive: true });
    const first = await get(port, warm, { name: "", ...stickyRoute });
    const cookie = first.setCookie?.split(";")[0];
    const answers = await Promise.all([kedge, bareTarget, hygienicTarget].map((t) => get(port, warm, t)));
    if (answers.some((a) => a.status !== 200) || !cookie) {
      throw new Error("bench targets do not answer 200 (or the sticky route set no cookie)");
    }
    const sticky: Target = { name: "kedge, warm sticky session", ...stickyRoute, cookie };
    // No cookie sent back: every request starts a session (a first visit, a crawler, a curl loop).
    const newSession: Target = { name: "kedge, new session per request", ...stickyRoute };
    const network: Target = {
      name: "kedge, endpoint through a VPC network binding stand-in",
      host: hostOf(NETWORK_ROUTE, 1000),
      path: `/api/v${NETWORK_ROUTE}/item`,
    };
    if ((await get(port, warm, network)).status !== 200) throw new Error("the endpoint behind the network stand-in does not answer 200");
    const targets = [kedge, bareTarget, hygienicTarget, sticky, newSession, network];
    const cpuMs = childCpuClock("workerd");
    const runs = new Map(targets.map((t) => [t, { rps: [] as number[], cpuUs: [] as number[], latencies: [] as number[], errors: 0 }]));
    for (let i = 0; i < options.rounds; i++) {
      for (const target of targets) {
        const before = cpuMs?.();
        const r = await run(port, target, options.seconds, options.concurrency);
        const entry = runs.get(target)!;
        entry.rps.push(r.rps);
        if (cpuMs && before !== undefined) entry.cpuUs.push(((cpuMs() - before) * 1000) / r.latencies.length);
        entry.latencies.push(...r.latencies);
        entry.errors += r.errors;
      }
    }
    // A canary at 10%: the same routes under a second version; both prepared in the isolate.
    const canaryTable = { ...table, version: `${table.version.slice(0, 16)}ca9a` };
    await kv.put(KV_KEYS.blob(table.name, canaryTable.version), canonicalJson(canaryTable));
    const startedAt = new Date().toISOString();
    await kv.put(
      KV_KEYS.current(table.name),
      JSON.stringify({
        version: table.version,
        schemaVersion: table.schemaVersion,
        updatedAt: startedAt,
        canary: {
          id: `${canaryTable.version}-bench`,
          version: canaryTable.version,
          percent: 10,
          startedAt,
          by: "bench",
          analysis: { windowMs: 86_400_000, minRequests: 1_000_000_000, maxErrorRateIncrease: 1 },
        },
      }),
    );
    // The pointer is re-read every TABLE_REFRESH_SECONDS (5): a request starts the refresh, the next ones see both versions.
    await get(port, warm, kedge);
    await new Promise((resolve) => setTimeout(resolve, 6000));
    await get(port, warm, kedge);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const canarySession = (await get(port, warm, { name: "", ...stickyRoute })).setCookie?.split(";")[0];
    if (!canarySession) throw new Error("the sticky route set no cookie under the canary");
    const underCanary: Target = { name: "kedge, canary at 10% (version drawn per request)", host: kedge.host, path: kedge.path };
    const stickyUnderCanary: Target = { name: "kedge, canary at 10%, warm sticky session", ...stickyRoute, cookie: canarySession };
    const canaryTargets = [bareTarget, underCanary, stickyUnderCanary];
    const canaryRuns = new Map(
      canaryTargets.map((t) => [t, { rps: [] as number[], cpuUs: [] as number[], latencies: [] as number[], errors: 0 }]),
    );
    for (let i = 0; i < options.rounds; i++) {
      for (const target of canaryTargets) {
        const before = cpuMs?.();
        const r = await run(port, target, options.seconds, options.concurrency);
        const entry = canaryRuns.get(target)!;
        entry.rps.push(r.rps);
        if (cpuMs && before !== undefined) entry.cpuUs.push(((cpuMs() - before) * 1000) / r.latencies.length);
        entry.latencies.push(...r.latencies);
        entry.errors += r.errors;
      }
    }
    warm.destroy();
    const roundRatios = (a: number[], b: number[]) => median(a.map((x, i) => x / b[i]!));
    const kedgeVsBare = roundRatios(runs.get(kedge)!.rps, runs.get(bareTarget)!.rps);
    const stickyVsBare = roundRatios(runs.get(sticky)!.rps, runs.get(bareTarget)!.rps);
    // Measured in rounds of their own: each against the bare Worker of its own round, and kedge through that ratio.
    const canaryFigures = [underCanary, stickyUnderCanary].map((target): ThroughputFigure => {
      const r = canaryRuns.get(target)!;
      const vsBare = roundRatios(r.rps, canaryRuns.get(bareTarget)!.rps);
      return {
        target: target.name,
        rps: median(r.rps),
        p50Ms: percentile(r.latencies, 50),
        p99Ms: percentile(r.latencies, 99),
        errors: r.errors,
        cpuUsPerRequest: r.cpuUs.length > 0 ? median(r.cpuUs) : undefined,
        vsBare,
        vsKedge: vsBare / (target === underCanary ? kedgeVsBare : stickyVsBare),
        vsHeaderWork: Number.NaN,
      };
    });
    return [
      ...targets.map((target) => {
        const r = runs.get(target)!;
        return {
          target: target.name,
          rps: median(r.rps),
          p50Ms: percentile(r.latencies, 50),
          p99Ms: percentile(r.latencies, 99),
          errors: r.errors,
          cpuUsPerRequest: r.cpuUs.length > 0 ? median(r.cpuUs) : undefined,
          vsBare: roundRatios(r.rps, runs.get(bareTarget)!.rps),
          vsKedge: roundRatios(r.rps, runs.get(kedge)!.rps),
          vsHeaderWork: roundRatios(r.rps, runs.get(hygienicTarget)!.rps),
        };
      }),
      ...canaryFigures,
    ];
  } finally {
    await gateway.dispose();
    await origin.close();
    rmSync(state, { recursive: true, force: true });
  }
}
