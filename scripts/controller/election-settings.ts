/**
 * @module Who campaigns, and where: the candidate's identity (the Pod's name, else host name and process
 * id, as client-go's examples take it), the Lease's namespace (the Pod's own, else kedge-system, as
 * controller-runtime defaults it), its name (one per table, so two edges in one cluster elect apart), and the
 * cluster that keeps it (`--leader-elect-context`: a live cluster of kedge.yaml or a context of the
 * kubeconfig; by default the cluster kedge runs in, else kedge.yaml's first live cluster).
 */
import { existsSync, readFileSync } from "node:fs";
import { hostname } from "node:os";
import type { ClusterSettings, EdgeConfig } from "../../src/compile/input/edge-config";
import { inPod, KubeApi } from "../kube/api-client";
import { UserError } from "../lib/user-error";

/** Where a Pod's ServiceAccount namespace is mounted. */
const POD_NAMESPACE_FILE = "/var/run/secrets/kubernetes.io/serviceaccount/namespace";
export const DEFAULT_ELECTION_NAMESPACE = "kedge-system";
/** The context name `@kubernetes/client-node` gives the in-cluster configuration. */
export const IN_CLUSTER_CONTEXT = "inClusterContext";
/** RFC 1123 label: what a namespace must be. */
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** This candidate's identity: $POD_NAME (the downward API), else `<host name>_<process id>`. */
export const candidateIdentity = (env: NodeJS.ProcessEnv = process.env): string => env.POD_NAME || `${hostname()}_${process.pid}`;

/** The namespace the Lease is kept in: the flag's, else the Pod's own, else kedge-system. */
export function electionNamespace(flag: string | undefined, file = POD_NAMESPACE_FILE): string {
  const namespace = flag ?? ((existsSync(file) ? readFileSync(file, "utf8").trim() : "") || DEFAULT_ELECTION_NAMESPACE);
  if (!DNS_LABEL.test(namespace) || namespace.length > 63)
    throw new UserError(
      `--leader-elect-namespace ${JSON.stringify(namespace)} is not a namespace name`,
      "a lowercase RFC 1123 label, e.g. --leader-elect-namespace kedge-system",
    );
  return namespace;
}

/** The Lease's name for table `table`: `kedge-<table>`, made a valid object name. */
export const leaseName = (table: string): string =>
  `kedge-${table
    .toLowerCase()
    .replace(/[^a-z0-9.-]+/g, "-")
    .replace(/^[-.]+|[-.]+$/g, "")}`
    .slice(0, 253)
    .replace(/[-.]+$/, "");

/** The API of the cluster that keeps the Lease, and how it was chosen (for the log). */
export function leaseCluster(
  flag: string | undefined,
  edge: EdgeConfig,
  env: NodeJS.ProcessEnv = process.env,
): { api: KubeApi; chosen: string } {
  const live = edge.clusters.filter((c): c is ClusterSettings & { kubeContext: string } => c.kubeContext !== undefined);
  if (flag === undefined) {
    if (inPod(env)) return { api: KubeApi.inCluster(), chosen: "the cluster kedge runs in (its ServiceAccount)" };
    const first = live[0];
    if (!first)
      throw new UserError(
        "--leader-elect needs a cluster to keep its Lease in: kedge does not run in a Pod and kedge.yaml names no live cluster (kubeContext)",
        "name one with --leader-elect-context CONTEXT (a context of your kubeconfig)",
      );
    return { api: KubeApi.forCluster(first), chosen: `cluster ${first.name}, the first live cluster of kedge.yaml` };
  }
  const named = live.find((c) => c.name === flag) ?? live.find((c) => c.kubeContext === flag);
  if (named) return { api: KubeApi.forCluster(named), chosen: `cluster ${named.name} (--leader-elect-context)` };
  if (flag === IN_CLUSTER_CONTEXT && inPod(env))
    return { api: KubeApi.inCluster(), chosen: "the cluster kedge runs in (--leader-elect-context)" };
  // A context of the default kubeconfig, else of a kubeconfig file kedge.yaml names.
  const files = [undefined, ...new Set(live.map((c) => c.kubeconfig).filter((f): f is string => f !== undefined))];
  let problem = "";
  for (const kubeconfig of files) {
    try {
      const api = KubeApi.forCluster({ ...STANDALONE, name: flag, kubeContext: flag, ...(kubeconfig ? { kubeconfig } : {}) });
      return { api, chosen: `context ${flag} of ${kubeconfig ?? "the kubeconfig"} (--leader-elect-context)` };
    } catch (error) {
      if (!(error instanceof UserError)) throw error;
      problem ||= error.message;
    }
  }
  const names = live.map((c) => `${c.name} (context ${c.kubeContext})`).join(", ");
  throw new UserError(
    `--leader-elect-context ${flag} is neither a live cluster of kedge.yaml nor a context of a kubeconfig kedge reads (${problem})`,
    names
      ? `name one of the live clusters: ${names}; or a context of $KUBECONFIG`
      : "name a context of $KUBECONFIG (kubectl config get-contexts lists them)",
  );
}

/** Settings of a cluster kedge.yaml does not name: only its name and context are read. */
const STANDALONE: ClusterSettings = {
  name: "",
  weight: 1,
  state: "Serving",
  priority: 0,
  endpoints: { from: "EndpointSlice", scheme: "http" },
};
