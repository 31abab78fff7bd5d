/**
 * @module The flags that make `kedge sync --watch` a controller, named as controller-runtime's manager
 * names them (`--leader-elect`, `--metrics-bind-address`, `--health-probe-bind-address`), with client-go's
 * leader election timings and the resync period; and the options they come to, checked before anything
 * starts (each mistake a UserError: exit 2, one line and its fix).
 */
import { RESYNC_MS } from "../kube/cluster-watch";
import type { ControllerOptions } from "../controller/controller";
import { parseBindAddress } from "../controller/endpoints";
import { CLIENT_GO_TIMINGS, timingsProblem } from "../controller/leader-election";
import { UserError } from "../lib/user-error";
import type { Flag } from "./command";
import { parseDurationFlag } from "./flags";

export interface ControllerFlags {
  watch?: boolean;
  leaderElect?: boolean;
  leaderElectNamespace?: string;
  leaderElectContext?: string;
  leaderElectLeaseDuration?: number;
  leaderElectRenewDeadline?: number;
  leaderElectRetryPeriod?: number;
  metricsBindAddress?: string;
  healthProbeBindAddress?: string;
  resyncPeriod?: number;
}

const seconds = (ms: number) => `${ms / 1000}s`;

export const CONTROLLER_FLAGS: Flag[] = [
  {
    flags: "--leader-elect",
    description:
      "with --watch: elect a leader on a coordination.k8s.io/v1 Lease, so that of several replicas only the leader pushes and writes status (the others watch and compile, ready to take over)",
  },
  {
    flags: "--leader-elect-namespace <namespace>",
    description: "the Lease's namespace",
    defaultText: "the Pod's namespace, else kedge-system",
  },
  {
    flags: "--leader-elect-context <context>",
    description: "the cluster that keeps the Lease: a live cluster of kedge.yaml (by name or kubeContext) or a kubeconfig context",
    defaultText: "the cluster kedge runs in, else the first live cluster",
  },
  {
    flags: "--leader-elect-lease-duration <duration>",
    description: "how long followers wait, from the last renewal they saw, before they take the Lease",
    defaultText: seconds(CLIENT_GO_TIMINGS.leaseDurationMs),
    parse: (text) => parseDurationFlag(text, "--leader-elect-lease-duration"),
  },
  {
    flags: "--leader-elect-renew-deadline <duration>",
    description: "how long the leader tries to renew the Lease before it stops leading",
    defaultText: seconds(CLIENT_GO_TIMINGS.renewDeadlineMs),
    parse: (text) => parseDurationFlag(text, "--leader-elect-renew-deadline"),
  },
  {
    flags: "--leader-elect-retry-period <duration>",
    description: "how often candidates try to take the Lease and the leader renews it",
    defaultText: seconds(CLIENT_GO_TIMINGS.retryPeriodMs),
    parse: (text) => parseDurationFlag(text, "--leader-elect-retry-period"),
  },
  {
    flags: "--metrics-bind-address <address>",
    description: "with --watch: serve Prometheus metrics on http://ADDRESS/metrics (:8080 every interface, 127.0.0.1:8080, 0 none)",
    defaultText: "0, none",
  },
  {
    flags: "--health-probe-bind-address <address>",
    description: "with --watch: serve the /healthz and /readyz probes on ADDRESS (:8081, 127.0.0.1:8081, 0 none)",
    defaultText: "0, none",
  },
  {
    flags: "--resync-period <duration>",
    description: "with --watch: how often each live cluster is discovered and listed again, finding what a watch missed",
    defaultText: `${RESYNC_MS / 60_000}m`,
    parse: (text) => parseDurationFlag(text, "--resync-period"),
  },
];

/** The controller's options from the flags; a flag that needs --watch (or --leader-elect) without it is refused. */
export function controllerOptions(flags: ControllerFlags): ControllerOptions & { resyncMs: number } {
  const given = (name: string, value: unknown) => (value === undefined || value === false ? [] : [name]);
  const watchOnly = [
    ...given("--leader-elect", flags.leaderElect),
    ...given("--metrics-bind-address", flags.metricsBindAddress),
    ...given("--health-probe-bind-address", flags.healthProbeBindAddress),
    ...given("--resync-period", flags.resyncPeriod),
  ];
  if (!flags.watch && watchOnly.length > 0)
    throw new UserError(`${watchOnly[0]} is a flag of the running controller: it needs --watch`, `kedge sync --watch ${watchOnly[0]} ...`);
  const electionOnly = [
    ...given("--leader-elect-namespace", flags.leaderElectNamespace),
    ...given("--leader-elect-context", flags.leaderElectContext),
    ...given("--leader-elect-lease-duration", flags.leaderElectLeaseDuration),
    ...given("--leader-elect-renew-deadline", flags.leaderElectRenewDeadline),
    ...given("--leader-elect-retry-period", flags.leaderElectRetryPeriod),
  ];
  if (!flags.leaderElect && electionOnly.length > 0)
    throw new UserError(`${electionOnly[0]} sets up leader election: it needs --leader-elect`, `add --leader-elect (and --watch)`);
  const timings = {
    leaseDurationMs: flags.leaderElectLeaseDuration ?? CLIENT_GO_TIMINGS.leaseDurationMs,
    renewDeadlineMs: flags.leaderElectRenewDeadline ?? CLIENT_GO_TIMINGS.renewDeadlineMs,
    retryPeriodMs: flags.leaderElectRetryPeriod ?? CLIENT_GO_TIMINGS.retryPeriodMs,
  };
  const problem = timingsProblem(timings);
  if (flags.leaderElect && problem)
    throw new UserError(
      `${problem} (now ${seconds(timings.leaseDurationMs)}, ${seconds(timings.renewDeadlineMs)} and ${seconds(timings.retryPeriodMs)})`,
      "client-go's defaults hold: lease duration 15s, renew deadline 10s, retry period 2s",
    );
  return {
    ...(flags.leaderElect
      ? {
          election: {
            ...(flags.leaderElectNamespace !== undefined ? { namespace: flags.leaderElectNamespace } : {}),
            ...(flags.leaderElectContext !== undefined ? { context: flags.leaderElectContext } : {}),
            timings,
          },
        }
      : {}),
    metrics: parseBindAddress(flags.metricsBindAddress ?? "0", "--metrics-bind-address"),
    probes: parseBindAddress(flags.healthProbeBindAddress ?? "0", "--health-probe-bind-address"),
    resyncMs: flags.resyncPeriod ?? RESYNC_MS,
  };
}
