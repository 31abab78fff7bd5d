/**
 * @module `npm run fault`: a cluster dies under steady load, in three set-ups, each measured on its own
 * gateway (loopback only, bounded in time, stops by itself):
 *   (a) the failover scenario (test/fixtures/compile/failover.in.yaml) in three clusters; one dies, then comes back;
 *   (b) clients with sessions, some pinned to the cluster that dies;
 *   (c) a locality config; the cluster nearest to the clients dies;
 *   (d) clients with sessions while a cluster leaves kedge.yaml and joins again (sessions elsewhere stay).
 * A dead cluster's endpoints are replaced by listeners that reset every connection (and count them), so
 * the run can tell how long the gateway kept sending there. Prints, per set-up, the idempotent requests
 * that failed (goal: 0) and how long after the death the dead cluster still got tries.
 *
 * Options: --seconds N (each set-up's load, default 16), --kill-at N (default 3), --revive-at N (set-up a
 * only, default 8).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { LocalGateway } from "../dev/local-gateway";
import { startLocalGateway } from "../dev/local-gateway";
import { FAILOVER_SHARED, failoverSlices } from "../../test/support/failover-scenario";
import { type Origin, startOrigin } from "../dev/origin-server";
import { type SyncOptions, syncCommand, syncTable } from "../cli/commands/sync";
import { commandIO, parseOptions } from "../cli/program";
import { render } from "../cli/render";

process.env.WRANGLER_SEND_METRICS ??= "false";

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const SECONDS = arg("--seconds", 16);
const KILL_AT = arg("--kill-at", 3);
const REVIVE_AT = arg("--revive-at", 8);
const CONCURRENCY = 8;
const CLUSTERS = ["iad", "sfo", "gru"] as const;
type Cluster = (typeof CLUSTERS)[number];
const LOCALITY: Record<Cluster, string> = {
  iad: "{ continent: NA, countries: [US], colos: [IAD] }",
  sfo: "{ continent: NA, countries: [US], colos: [SFO] }",
  gru: "{ continent: SA, countries: [BR], colos: [GRU] }",
};
/** Where set-up (c)'s clients are: nearest to iad, then sfo (same country). */
const CLIENT_CF = { colo: "IAD", country: "US", continent: "NA" };

/** A dead endpoint: accepts nothing (every connection is reset at once), but counts the tries. */
class DeadEndpoint {
  readonly tries: number[] = [];
  private readonly server: Server;
  private constructor(server: Server) {
    this.server = server;
  }
  static async on(port: number): Promise<DeadEndpoint> {
    let dead: DeadEndpoint | undefined;
    const server = createServer((socket: Socket) => {
      dead?.tries.push(performance.now());
      socket.resetAndDestroy();
    });
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, "127.0.0.1", () => resolve());
    });
    dead = new DeadEndpoint(server);
    return dead;
  }
  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/** Three clusters of two origins each, synced and served by a gateway of their own. */
class Stage {
  readonly origins = new Map<string, Origin>();
  readonly dead: DeadEndpoint[] = [];
  gateway!: LocalGateway;
  private readonly dir = mkdtempSync(join(tmpdir(), "kedge-fault-"));
  private readonly config = join(this.dir, "config");
  private readonly state = join(this.dir, "state");
  private name = "";
  private edgeExtra = "";

  /** Writes kedge.yaml naming `clusters` (the others' folders are then ignored) and syncs it into the gateway's state. */
  async sync(clusters: readonly Cluster[]): Promise<void> {
    const list = clusters.map((c) => `    - { name: ${c}, locality: ${LOCALITY[c]} }`).join("\n");
    writeFileSync(
      join(this.config, "kedge.yaml"),
      `apiVersion: kedge.dev/v1alpha1\nkind: EdgeConfig\nmetadata: { name: ${this.name} }\nspec:\n  gatewayClassName: kedge\n${this.edgeExtra}  clusters:\n${list}\n`,
    );
    const options = parseOptions<SyncOptions>(syncCommand, ["--config", this.config, "--persist-to", this.state]);
    const synced = await syncTable(options, commandIO(options, { out: () => {}, err: (line) => console.error(line) }));
    if (synced.code !== 0) throw new Error(`sync failed:\n${render(synced, "text")}`);
  }

  async start(name: string, edgeExtra: string): Promise<void> {
    this.name = name;
    this.edgeExtra = edgeExtra;
    const ports = new Map<Cluster, number[]>();
    for (const cluster of CLUSTERS) {
      const list: number[] = [];
      for (const i of [0, 1]) {
        const origin = await startOrigin({ cluster, endpoint: `${cluster}-${i}`, backends: ["shop/web"] });
        this.origins.set(`${cluster}-${i}`, origin);
        list.push(origin.port);
      }
      ports.set(cluster, list);
    }
    for (const cluster of CLUSTERS) {
      mkdirSync(join(this.config, "clusters", cluster), { recursive: true });
      writeFileSync(join(this.config, "clusters", cluster, "shared.yaml"), FAILOVER_SHARED);
      writeFileSync(join(this.config, "clusters", cluster, "endpoints.yaml"), failoverSlices(ports.get(cluster)!));
    }
    await this.sync(CLUSTERS);
    // A re-sync (set-up d) is served within TABLE_REFRESH_SECONDS (5 s), as deployed.
    this.gateway = await startLocalGateway({ persistTo: this.state, vars: { KEDGE_TABLE: name } });
  }

  /** The cluster's origins stop; listeners that reset every connection take their ports. */
  async kill(cluster: Cluster): Promise<void> {
    for (const i of [0, 1]) {
      const origin = this.origins.get(`${cluster}-${i}`)!;
      await origin.close();
      this.origins.delete(`${cluster}-${i}`);
      this.dead.push(await DeadEndpoint.on(origin.port));
    }
  }

  async revive(cluster: Cluster, ports: number[]): Promise<void> {
    await Promise.all(this.dead.splice(0).map((d) => d.close()));
    for (const [i, port] of ports.entries())
      this.origins.set(`${cluster}-${i}`, await startOrigin({ cluster, endpoint: `${cluster}-${i}`, backends: ["shop/web"] }, port));
  }

  async get(path: string, headers: Record<string, string> = {}, cf?: Record<string, string>) {
    const response = await this.gateway.miniflare.dispatchFetch(`http://shop.example.com${path}`, { headers, ...(cf ? { cf } : {}) });
    const text = await response.text();
    const answer = response.status === 200 ? (JSON.parse(text) as { cluster: Cluster; endpoint: string }) : undefined;
    return { status: response.status, cluster: answer?.cluster, endpoint: answer?.endpoint, setCookie: response.headers.get("set-cookie") };
  }

  async stop(): Promise<void> {
    await this.gateway.dispose();
    await Promise.all([...this.origins.values()].map((o) => o.close().catch(() => {})));
    await Promise.all(this.dead.map((d) => d.close()));
    rmSync(this.dir, { recursive: true, force: true });
  }
}

interface Outcome {
  "set-up": string;
  requests: number;
  "failed (idempotent)": number;
  "tries on the dead cluster": number;
  "dead cluster's last try (s after death)": string;
  note: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Runs `each` from CONCURRENCY loops until SECONDS pass; `at()` is the time since the load began. */
async function load(
  each: (worker: number, at: () => number) => Promise<void>,
  events: (at: () => number, began: number) => Promise<void>,
): Promise<number> {
  const began = performance.now();
  const at = () => (performance.now() - began) / 1000;
  const loops = Array.from({ length: CONCURRENCY }, async (_, worker) => {
    while (at() < SECONDS) await each(worker, at);
  });
  await Promise.all([...loops, events(at, began)]);
  return began;
}

/** The dead cluster's tries: how many, and the last one in the 9 s after the death, in seconds after it. */
function deadTries(stage: Stage, began: number): Pick<Outcome, "tries on the dead cluster" | "dead cluster's last try (s after death)"> {
  const tries = stage.dead.flatMap((d) => d.tries).map((t) => (t - began) / 1000 - KILL_AT);
  // An ejection lasts 10 s; tries after it are the probation tries that find the cluster still dead.
  const burst = tries.filter((t) => t < 9);
  return {
    "tries on the dead cluster": tries.length,
    "dead cluster's last try (s after death)": burst.length === 0 ? "none" : Math.max(...burst).toFixed(2),
  };
}

/** (a) identical manifests in three clusters; gru dies at KILL_AT and comes back at REVIVE_AT. */
async function identicalManifests(): Promise<Outcome> {
  const stage = new Stage();
  await stage.start("fault-a", "");
  const counts = { total: 0, failed: 0 };
  let revivedServedAt: number | undefined;
  let dead = deadTries(stage, 0);
  const ports = [stage.origins.get("gru-0")!.port, stage.origins.get("gru-1")!.port];
  await load(
    async (_, at) => {
      const { status, cluster } = await stage.get("/");
      counts.total++;
      if (status !== 200) counts.failed++;
      if (cluster === "gru" && at() > REVIVE_AT) revivedServedAt ??= at();
    },
    async (at, began) => {
      await sleep(KILL_AT * 1000);
      await stage.kill("gru");
      await sleep(Math.max(0, (REVIVE_AT - at()) * 1000));
      // Counted before the cluster returns (its dead listeners go then).
      dead = deadTries(stage, began);
      await stage.revive("gru", ports);
    },
  );
  await stage.stop();
  return {
    "set-up": "(a) same manifests in 3 clusters",
    requests: counts.total,
    "failed (idempotent)": counts.failed,
    ...dead,
    note:
      revivedServedAt === undefined
        ? "revived cluster not served within the run"
        : `revived cluster served ${(revivedServedAt - REVIVE_AT).toFixed(2)} s after it came back`,
  };
}

/** (b) 24 clients, each with a session (/cart); iad dies at KILL_AT. */
async function pinnedSessions(): Promise<Outcome> {
  const stage = new Stage();
  await stage.start("fault-b", "");
  const clients = Array.from({ length: 24 }, () => ({ cookie: "", cluster: undefined as Cluster | undefined }));
  for (const client of clients) {
    const first = await stage.get("/cart");
    client.cookie = first.setCookie!.split(";")[0]!;
    client.cluster = first.cluster;
  }
  const onVictim = clients.filter((c) => c.cluster === "iad").length;
  const counts = { total: 0, failed: 0, moved: 0 };
  let allMovedAt: number | undefined;
  const began = await load(
    async (worker, at) => {
      for (let i = worker; i < clients.length; i += CONCURRENCY) {
        const client = clients[i]!;
        const { status, cluster, setCookie } = await stage.get("/cart", { cookie: client.cookie });
        counts.total++;
        if (status !== 200) counts.failed++;
        if (setCookie) {
          client.cookie = setCookie.split(";")[0]!;
          if (client.cluster === "iad" && cluster !== "iad") counts.moved++;
        }
        client.cluster = cluster ?? client.cluster;
        if (at() > KILL_AT && allMovedAt === undefined && clients.every((c) => c.cluster !== "iad")) allMovedAt = at();
      }
    },
    async () => {
      await sleep(KILL_AT * 1000);
      await stage.kill("iad");
    },
  );
  const dead = deadTries(stage, began);
  await stage.stop();
  return {
    "set-up": "(b) sessions pinned to the dead cluster",
    requests: counts.total,
    "failed (idempotent)": counts.failed,
    ...dead,
    note: `${counts.moved} of ${onVictim} sessions on iad moved (new token)${allMovedAt === undefined ? "" : `, all by ${(allMovedAt - KILL_AT).toFixed(2)} s`}`,
  };
}

/** (c) locality: clients at IAD; iad (the nearest) dies at KILL_AT; sfo (same country) should take over. */
async function nearestClusterDies(): Promise<Outcome> {
  const stage = new Stage();
  await stage.start("fault-c", "  locality: { minHealthyEndpoints: 2 }\n");
  const counts = { total: 0, failed: 0 };
  const after: Record<string, number> = {};
  const began = await load(
    async (_, at) => {
      const { status, cluster } = await stage.get("/", {}, CLIENT_CF);
      counts.total++;
      if (status !== 200) counts.failed++;
      if (at() > KILL_AT + 1 && cluster) after[cluster] = (after[cluster] ?? 0) + 1;
    },
    async () => {
      await sleep(KILL_AT * 1000);
      await stage.kill("iad");
    },
  );
  const dead = deadTries(stage, began);
  await stage.stop();
  const split = Object.entries(after)
    .map(([c, n]) => `${c} ${n}`)
    .join(", ");
  return {
    "set-up": "(c) locality: nearest cluster dies",
    requests: counts.total,
    "failed (idempotent)": counts.failed,
    ...dead,
    note: `answered after the death (from 1 s on): ${split || "none"}`,
  };
}

/**
 * (d) clusters leave and join: 24 clients with sessions; gru leaves kedge.yaml at KILL_AT and joins again at
 * REVIVE_AT, its pods alive throughout. Sessions on iad and sfo must keep their endpoints (goal: 0 moved);
 * gru's move when it leaves.
 */
async function clusterLeavesAndJoins(): Promise<Outcome> {
  const stage = new Stage();
  await stage.start("fault-d", "");
  const clients = Array.from({ length: 24 }, () => ({ cookie: "", endpoint: "", cluster: undefined as Cluster | undefined }));
  for (const client of clients) {
    const first = await stage.get("/cart");
    client.cookie = first.setCookie!.split(";")[0]!;
    client.cluster = first.cluster;
    client.endpoint = first.endpoint ?? "";
  }
  const onLeaver = clients.filter((c) => c.cluster === "gru").length;
  const counts = { total: 0, failed: 0, stayingMoved: 0, leaverMoved: 0 };
  await load(
    async (worker) => {
      for (let i = worker; i < clients.length; i += CONCURRENCY) {
        const client = clients[i]!;
        const { status, cluster, endpoint, setCookie } = await stage.get("/cart", { cookie: client.cookie });
        counts.total++;
        if (status !== 200) counts.failed++;
        if (setCookie) {
          client.cookie = setCookie.split(";")[0]!;
          if (client.cluster === "gru") counts.leaverMoved++;
          else counts.stayingMoved++;
          client.cluster = cluster;
        } else if (endpoint && endpoint !== client.endpoint) counts.stayingMoved++;
        client.endpoint = endpoint ?? client.endpoint;
      }
    },
    async (at) => {
      await sleep(KILL_AT * 1000);
      await stage.sync(["iad", "sfo"]);
      await sleep(Math.max(0, (REVIVE_AT - at()) * 1000));
      await stage.sync(CLUSTERS);
    },
  );
  await stage.stop();
  return {
    "set-up": "(d) a cluster leaves and joins again",
    requests: counts.total,
    "failed (idempotent)": counts.failed,
    "tries on the dead cluster": 0,
    "dead cluster's last try (s after death)": "n/a",
    note: `sessions on the staying clusters moved: ${counts.stayingMoved} (goal 0); of ${onLeaver} on gru, ${counts.leaverMoved} moved when it left`,
  };
}

async function main(): Promise<void> {
  console.log(
    `Three clusters × 2 origins per set-up; a cluster dies ${KILL_AT} s into ${SECONDS} s of load at concurrency ${CONCURRENCY} (loopback only).\n`,
  );
  const outcomes: Outcome[] = [];
  for (const run of [identicalManifests, pinnedSessions, nearestClusterDies, clusterLeavesAndJoins]) {
    const outcome = await run();
    console.log(`${outcome["set-up"]}: ${outcome.requests} requests, ${outcome["failed (idempotent)"]} failed`);
    outcomes.push(outcome);
  }
  console.log("");
  console.table(outcomes);
  console.log(
    "\nEvery request is a GET. A dead cluster's endpoints reset every connection; a try that fails is retried at once on another\n" +
      "cluster, and three failed tries eject an endpoint for 10 s (then one probation try). 'Last try' counts tries in the 9 s after\n" +
      "the death: after it, the dead cluster got no more traffic until its ejection ran out.",
  );
  if (outcomes.some((o) => o["failed (idempotent)"] > 0) || /moved: [1-9]/.test(outcomes.at(-1)?.note ?? "")) process.exitCode = 1;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
