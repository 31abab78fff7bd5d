/**
 * @module Live-list benchmark: `sync --watch` of one cluster of `services` Services with two EndpointSlices each
 * (20 of them routed), served by the stand-in API server (paged lists, watches) in this process while the watch
 * runs in a child (live-list-probe.ts), so its peak memory is the watch's own. Timed from the child's start: the
 * first push; then, each from the moment the parent changes it, one routed endpoint's change until it is pushed and
 * one unrouted Service's change until its cycle is passed over (both include the 1 s quiet period).
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { KubeStandIn, kubeconfigFor } from "../../../test/support/kube-api-stand-in";
import { httpService, kedgeClass, resource } from "../../../test/support/stand-in-resources";

const ROOT = resolve(import.meta.dirname, "..", "..", "..");
const ROUTED = 20;
const TOKEN = "bench";

export interface LiveListFigure {
  services: number;
  slices: number;
  firstPushMs: number;
  routedChangeMs: number;
  unroutedChangeMs: number;
  maxRssMB: number;
}

/** An EndpointSlice of `service` with two ready endpoints on a pod network, one port. */
const slice = (service: string, suffix: string, octet: number) => ({
  metadata: { name: `${service}-${suffix}`, namespace: "shop", labels: { "kubernetes.io/service-name": service } },
  addressType: "IPv4",
  ports: [{ name: "http", port: 8080 }],
  endpoints: [10, 11].map((last) => ({
    addresses: [`10.${octet % 250}.${Math.floor(octet / 250) % 250}.${last}`],
    conditions: { ready: true },
  })),
});

export async function benchLiveList(services: number): Promise<LiveListFigure> {
  const names = Array.from({ length: services }, (_, i) => `svc-${i}`);
  const standIn = await KubeStandIn.start(
    [
      kedgeClass(),
      resource("Gateway", [
        {
          metadata: { name: "gw", namespace: "shop" },
          spec: { gatewayClassName: "kedge", listeners: [{ name: "http", protocol: "HTTP", port: 80 }] },
        },
      ]),
      resource(
        "HTTPRoute",
        names.slice(0, ROUTED).map((name, i) => ({
          metadata: { name, namespace: "shop" },
          spec: { parentRefs: [{ name: "gw" }], hostnames: [`h${i}.example.com`], rules: [{ backendRefs: [{ name, port: 80 }] }] },
        })),
      ),
      resource(
        "Service",
        names.map((name) => httpService("shop", name)),
      ),
      resource(
        "EndpointSlice",
        names.flatMap((name, i) => [slice(name, "a", i), slice(name, "b", i + services)]),
      ),
    ],
    { token: TOKEN },
  );
  const dir = mkdtempSync(join(tmpdir(), "kedge-bench-live-"));
  const kubeconfig = join(dir, "kubeconfig.json");
  writeFileSync(kubeconfig, kubeconfigFor({ live: standIn.url }, TOKEN));
  writeFileSync(
    join(dir, "kedge.yaml"),
    `apiVersion: kedge.dev/v1alpha1\nkind: EdgeConfig\nmetadata: { name: live }\nspec:\n  gatewayClassName: kedge\n  clusters: [{ name: live, kubeContext: live, kubeconfig: ${JSON.stringify(kubeconfig)} }]\n`,
  );
  // KEDGE_BENCH_PROF=DIR writes the watch's CPU profile there.
  const profile = process.env.KEDGE_BENCH_PROF ? ["--cpu-prof", `--cpu-prof-dir=${process.env.KEDGE_BENCH_PROF}`] : [];
  const child = spawn(process.execPath, ["--import", "tsx", ...profile, join(ROOT, "scripts/tools/bench/live-list-probe.ts"), dir], {
    cwd: ROOT,
    env: { ...process.env, WRANGLER_SEND_METRICS: "false" },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const records: Record<string, unknown>[] = [];
  const waiters: { test: (r: Record<string, unknown>) => boolean; done: (r: Record<string, unknown>) => void }[] = [];
  createInterface({ input: child.stdout }).on("line", (line) => {
    const record = JSON.parse(line) as Record<string, unknown>;
    records.push(record);
    for (const w of waiters.splice(0)) {
      if (w.test(record)) w.done(record);
      else waiters.push(w);
    }
  });
  const next = (test: (r: Record<string, unknown>) => boolean, what: string) =>
    new Promise<Record<string, unknown>>((done, fail) => {
      const timer = setTimeout(
        () => fail(new Error(`live-list bench: no ${what} within 120 s: ${JSON.stringify(records.slice(-3))}`)),
        120_000,
      );
      waiters.push({ test, done: (r) => (clearTimeout(timer), done(r)) });
    });
  try {
    const first = await next((r) => r.pushed === true, "first push");
    const routedAt = performance.now();
    standIn.apply("endpointslices", slice("svc-0", "a", 249));
    await next((r) => r.pushed === true, "push of the routed change");
    const routedChangeMs = performance.now() - routedAt;
    const unroutedAt = performance.now();
    standIn.apply("endpointslices", slice(`svc-${services - 1}`, "a", 248));
    const passed = await next((r) => r.compiled === false || r.table !== undefined, "cycle after the unrouted change");
    if (passed.compiled !== false) throw new Error(`the unrouted change was compiled: ${JSON.stringify(passed)}`);
    const unroutedChangeMs = performance.now() - unroutedAt;
    return {
      services,
      slices: services * 2,
      firstPushMs: first.atMs as number,
      routedChangeMs,
      unroutedChangeMs,
      maxRssMB: Math.max(...records.map((r) => r.maxRssMB as number)),
    };
  } finally {
    child.kill("SIGTERM");
    await new Promise((r) => child.once("exit", r));
    await standIn.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(await benchLiveList(Number(process.argv[2] ?? 10_000)));
