/**
 * @module `kedge sync --watch` as a controller run in a cluster: the watch loop with, as controller-runtime's
 * manager gives a Go controller, leader election on a Lease (`--leader-elect`: only the leader pushes and
 * writes status, followers stay warm and publish at once when they take over), Prometheus metrics and the
 * health and readiness probes. On SIGTERM the cycle in progress finishes its push, then the Lease is
 * released (the successor need not wait it out), then the endpoints close.
 */
import { loadConfig } from "../config/load-config";
import type { StoreOpenedAhead } from "../store/open-store";
import { type WatchIO, WatchLoop, type WatchSettings, type WatchSummary } from "../watch/watch-loop";
import { candidateIdentity, electionNamespace, leaseCluster, leaseName } from "./election-settings";
import { type BindAddress, serveEndpoints } from "./endpoints";
import { healthProblems } from "./health";
import { type ElectionTimings, LeaderElector } from "./leader-election";
import { LeaseLock } from "./lease-lock";
import { ControllerMetrics } from "./metrics";

export interface ControllerOptions {
  /** Leader election, when asked for (`--leader-elect`). */
  election?: {
    /** `--leader-elect-namespace`; default the Pod's namespace, else kedge-system. */
    namespace?: string;
    /** `--leader-elect-context`; default the cluster kedge runs in, else the first live cluster. */
    context?: string;
    timings: ElectionTimings;
  };
  metrics: BindAddress | null;
  probes: BindAddress | null;
}

const time = () => new Date().toISOString();

/** Runs the watch as a controller until SIGTERM or SIGINT (or a failure it cannot go on with). */
export async function runController(
  settings: WatchSettings,
  store: StoreOpenedAhead,
  io: WatchIO,
  options: ControllerOptions,
): Promise<WatchSummary> {
  let elector: LeaderElector | undefined;
  const gate = { mayPublish: () => elector?.isLeader() ?? true, publisher: () => elector?.leader() ?? "" };
  let loop: WatchLoop | undefined;
  const metrics = new ControllerMetrics(() => loop?.watches.all() ?? []);
  loop = new WatchLoop(settings, store, io, { observer: metrics, ...(options.election ? { gate } : {}) });
  const watch = loop;

  let lease = "";
  if (options.election) {
    const edge = loadConfig(settings.configDir).edge;
    const { api, chosen } = leaseCluster(options.election.context, edge);
    const lock = new LeaseLock(api, electionNamespace(options.election.namespace), leaseName(edge.name));
    lease = `${lock.namespace}/${lock.name}`;
    const identity = candidateIdentity();
    elector = new LeaderElector(lock, identity, options.election.timings, {
      startedLeading: () => {
        metrics.leading(lock.name, true);
        io.record({ time: time(), election: "started leading", lease, identity });
        watch.poke("became the leader", true);
      },
      stoppedLeading: (why) => {
        metrics.leading(lock.name, false);
        io.record({ time: time(), election: "stopped leading", lease, identity, why });
      },
      newLeader: (leader) => {
        if (leader !== identity) io.record({ time: time(), election: leader ? "leader" : "no leader", lease, leader: leader || undefined });
      },
      problem: (line) => io.note(line),
    });
    metrics.leading(lock.name, false);
    io.record({ time: time(), election: "candidate", lease, identity, cluster: chosen });
  }

  const endpoints = await serveEndpoints(
    { metrics: options.metrics, probes: options.probes },
    {
      metrics: () => metrics.text(),
      health: () =>
        healthProblems({
          watches: () => watch.watches.all(),
          staleAfterMs: settings.staleAfterMs,
          election: () => elector?.check() ?? null,
        }),
      readiness: () => watch.readiness(),
    },
  );
  if (Object.keys(endpoints.urls).length > 0)
    io.record({ time: time(), serving: Object.keys(endpoints.urls).join(","), ...endpoints.urls });

  const campaign = new AbortController();
  const electing = elector
    ?.run(campaign.signal)
    .catch((error: unknown) => watch.fail(error instanceof Error ? error : new Error(String(error))));
  try {
    return await watch.run();
  } finally {
    // The watch has finished its last push: only now may a successor take the Lease.
    campaign.abort();
    await electing;
    await endpoints.close();
  }
}
