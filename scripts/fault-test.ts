/**
 * @module `npm run fault`: one of three clusters dies under steady load, then comes back. Loopback
 * only, bounded in time, stops by itself. Prints how many requests failed and how long the dead
 * cluster kept receiving traffic (until passive health ejected its endpoints), and when it served again.
 *
 * Options: --seconds N (total run, default 25), --kill-at N (default 3), --revive-at N (default 8).
 */
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { Agent, request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startLocalGateway } from "./lib/local-gateway";
import { type Origin, startOrigin } from "./lib/origin-server";
import { parseSyncArgs } from "./sync/args";
import { runSync } from "./sync/run-sync";

process.env.WRANGLER_SEND_METRICS ??= "false";

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const SECONDS = arg("--seconds", 25);
const KILL_AT = arg("--kill-at", 3);
const REVIVE_AT = arg("--revive-at", 8);
const CONCURRENCY = 8;
const CLUSTERS = ["us-east", "eu-west", "ap-southeast"];
const VICTIM = "eu-west";

function clusterYaml(ports: number[], withRoute: boolean): string {
  const route = `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: { name: gw, namespace: shop }
spec: { gatewayClassName: kedge, listeners: [{ name: http, protocol: HTTP, port: 80, hostname: shop.example.com }] }
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: { name: shop, namespace: shop }
spec:
  parentRefs: [{ name: gw }]
  rules: [{ backendRefs: [{ group: gateway.networking.k8s.io, kind: CompositeBackend, name: web, port: 8080 }] }]
---
`;
  const slices = ports.map(
    (port, i) => `---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata: { name: web-${i}, namespace: shop, labels: { kubernetes.io/service-name: web } }
addressType: IPv4
ports: [{ name: http, port: ${port} }]
endpoints: [{ addresses: ["127.0.0.1"] }]
`,
  );
  return `${withRoute ? route : ""}apiVersion: gateway.networking.k8s.io/v1
kind: CompositeBackend
metadata: { name: web, namespace: shop }
spec: { targetRefs: [{ kind: Service, name: web }] }
---
apiVersion: v1
kind: Service
metadata: { name: web, namespace: shop }
spec: { ports: [{ name: http, port: 8080 }] }
${slices.join("")}`;
}

function get(port: number, agent: Agent, path: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve) => {
    const req = request({ host: "127.0.0.1", port, path, agent, headers }, (res) => {
      let body = "";
      res.on("data", (d: Buffer) => (body += d.toString()));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", () => resolve({ status: 0, body: "" }));
    req.setTimeout(10_000, () => req.destroy());
    req.end();
  });
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "kedge-fault-"));
  const origins = new Map<string, Origin>();
  const start = async (cluster: string, i: number, port = 0) => {
    const origin = await startOrigin({ cluster, endpoint: `${cluster}-${i}`, backends: ["shop/web"] }, port);
    origins.set(`${cluster}-${i}`, origin);
    return origin.port;
  };
  const ports = new Map<string, number[]>();
  for (const cluster of CLUSTERS) ports.set(cluster, [await start(cluster, 0), await start(cluster, 1)]);
  mkdirSync(join(dir, "config", "clusters"), { recursive: true });
  writeFileSync(
    join(dir, "config", "kedge.yaml"),
    `apiVersion: kedge.dev/v1alpha1\nkind: EdgeConfig\nmetadata: { name: fault }\nspec:\n  gatewayClassName: kedge\n  clusters: [${CLUSTERS.map((c) => `{ name: ${c} }`).join(", ")}]\n`,
  );
  for (const cluster of CLUSTERS) {
    mkdirSync(join(dir, "config", "clusters", cluster));
    writeFileSync(join(dir, "config", "clusters", cluster, "app.yaml"), clusterYaml(ports.get(cluster)!, cluster === "us-east"));
  }
  const state = join(dir, "state");
  const quiet = { out: () => {}, err: (t: string) => console.error(t) };
  if ((await runSync(parseSyncArgs(["--config", join(dir, "config"), "--persist-to", state]), quiet)) !== 0) throw new Error("sync failed");
  const token = randomBytes(16).toString("hex");
  const gateway = await startLocalGateway({ persistTo: state, vars: { KEDGE_TABLE: "fault", KEDGE_STATUS_TOKEN: token } });
  const port = Number(gateway.url.port);
  console.log(
    `kedge on 127.0.0.1:${port}; ${CLUSTERS.length} clusters × 2 origins; ${VICTIM} dies at ${KILL_AT}s and returns at ${REVIVE_AT}s; ${SECONDS}s of load at concurrency ${CONCURRENCY}\n`,
  );

  const began = performance.now();
  const at = () => (performance.now() - began) / 1000;
  const counts = { total: 0, failed: 0, failedDuringOutage: 0 };
  let lastVictimAnswerBeforeDeath = 0;
  let ejectedAt: number | undefined;
  let victimBackAt: number | undefined;
  let killed = false;
  let revived = false;

  const events = (async () => {
    await new Promise((r) => setTimeout(r, KILL_AT * 1000));
    for (const i of [0, 1]) await origins.get(`${VICTIM}-${i}`)!.close();
    killed = true;
    console.log(`${at().toFixed(1)}s  ${VICTIM} origins stopped`);
    const agent = new Agent({ keepAlive: true });
    while (at() < REVIVE_AT && ejectedAt === undefined) {
      const status = await get(port, agent, "/.well-known/kedge/status", { host: "shop.example.com", authorization: `Bearer ${token}` });
      const backends = JSON.parse(status.body || "{}").backends as Record<string, { id: string; ejected: boolean }[]> | undefined;
      const victims = Object.values(backends ?? {})
        .flat()
        .filter((e) => e.id.startsWith(`${VICTIM}/`));
      if (victims.length > 0 && victims.every((e) => e.ejected)) ejectedAt = at();
      else await new Promise((r) => setTimeout(r, 50));
    }
    agent.destroy();
    await new Promise((r) => setTimeout(r, Math.max(0, (REVIVE_AT - at()) * 1000)));
    for (const [i, p] of ports.get(VICTIM)!.entries()) await start(VICTIM, i, p);
    revived = true;
    console.log(`${at().toFixed(1)}s  ${VICTIM} origins back`);
  })();

  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (at() < SECONDS) {
        const { status, body } = await get(port, agent, "/", { host: "shop.example.com" });
        counts.total++;
        const cluster = status === 200 ? (JSON.parse(body) as { cluster: string }).cluster : undefined;
        if (status !== 200) {
          counts.failed++;
          if (killed && !revived) counts.failedDuringOutage++;
        }
        if (cluster === VICTIM && !killed) lastVictimAnswerBeforeDeath = at();
        if (cluster === VICTIM && revived && victimBackAt === undefined) victimBackAt = at();
      }
    }),
  );
  await events;
  agent.destroy();
  await gateway.dispose();
  await Promise.all([...origins.values()].map((o) => o.close().catch(() => {})));
  rmSync(dir, { recursive: true, force: true });

  console.table([
    {
      requests: counts.total,
      failed: counts.failed,
      "failed during outage": counts.failedDuringOutage,
      "dead cluster ejected after (s)": ejectedAt === undefined ? "never" : (ejectedAt - KILL_AT).toFixed(2),
      "last answer before death (s)": lastVictimAnswerBeforeDeath.toFixed(2),
      "revived cluster served again after (s)": victimBackAt === undefined ? "not within the run" : (victimBackAt - REVIVE_AT).toFixed(2),
    },
  ]);
  console.log(
    "\nFailed requests are those answered with anything but 200 (connection errors are retried once on another cluster for idempotent requests).",
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
