/**
 * @module What `kedge manifests` prints: from the user's kedge.yaml, everything `kubectl apply -f -` needs to
 * run `kedge sync --watch` as a controller in one of the live clusters (the home cluster): its Namespace and
 * ServiceAccount; a ClusterRole with every rule the sync uses there and no more (kube/rbac-rules.ts) and a
 * Role for leader election's Leases in its namespace, each bound to the ServiceAccount; a ConfigMap with
 * the config (install/packaged-config.ts); and a Deployment of two replicas with `--leader-elect`, the
 * probes and metrics on named ports, resource requests, a non-root read-only container with a writable
 * emptyDir, POD_NAME from the downward API, and the Secrets it reads by reference: the Cloudflare API token
 * and account, and a kubeconfig for each other live cluster (created by the user, never printed here).
 */
import type { EdgeConfig } from "../../src/compile/input/edge-config";
import { clusterRoleRules, LEASE_RULES } from "../kube/rbac-rules";
import { UserError } from "../lib/user-error";
import { kubeconfigPath, MOUNTS, type PackedConfig } from "./packaged-config";

type Json = Record<string, unknown>;

export interface ManifestOptions {
  namespace: string;
  /** The live cluster the controller runs in (default: the first live cluster). */
  home?: string;
  image: string;
  replicas: number;
  /** The wrangler environment the controller pushes to (`--env`). */
  env?: string;
}

/** The Secret with the Cloudflare API token and account id. */
export const CLOUDFLARE_SECRET = "kedge-cloudflare";
/** The Secret with a kubeconfig of live cluster `name` (key `config`). */
export const kubeconfigSecret = (name: string) => `kedge-kubeconfig-${name.toLowerCase().replace(/[^a-z0-9-]+/g, "-")}`;
const NAME = "kedge-sync";
const LABELS = { "app.kubernetes.io/name": "kedge", "app.kubernetes.io/component": "sync" };
const PORTS = { metrics: 8080, probes: 8081 };

/** The home cluster: the one named, which must be live, else the first live cluster; undefined when none is live. */
export function homeCluster(edge: EdgeConfig, named: string | undefined): string | undefined {
  const live = edge.clusters.filter((c) => c.kubeContext);
  if (named === undefined) return live[0]?.name;
  if (live.some((c) => c.name === named)) return named;
  const known = live.map((c) => c.name).join(", ");
  throw new UserError(
    `--cluster ${named} is not a live cluster of kedge.yaml (one read through its API, kubeContext)`,
    known ? `name the cluster the controller runs in: ${known}` : "give the cluster a kubeContext in kedge.yaml",
  );
}

function deployment(edge: EdgeConfig, options: ManifestOptions, packed: PackedConfig, home: string | undefined): Json {
  const others = edge.clusters.filter((c) => c.kubeContext && c.name !== home);
  const args = [
    "--remote",
    ...["--config", packed.configDir, "--wrangler-config", packed.wranglerConfig],
    ...(options.env ? ["--env", options.env] : []),
    "--leader-elect",
    ...["--metrics-bind-address", `:${PORTS.metrics}`, "--health-probe-bind-address", `:${PORTS.probes}`],
  ];
  const secretEnv = (name: string, key: string) => ({ name, valueFrom: { secretKeyRef: { name: CLOUDFLARE_SECRET, key } } });
  const container = {
    name: "sync",
    image: options.image,
    imagePullPolicy: "IfNotPresent",
    args,
    env: [
      { name: "POD_NAME", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } },
      secretEnv("CLOUDFLARE_API_TOKEN", "api-token"),
      secretEnv("CLOUDFLARE_ACCOUNT_ID", "account-id"),
      // wrangler writes its logs and caches under HOME and the working folder: both on the emptyDir.
      { name: "HOME", value: "/work" },
      { name: "WRANGLER_SEND_METRICS", value: "false" },
    ],
    workingDir: "/work",
    ports: [
      { name: "metrics", containerPort: PORTS.metrics, protocol: "TCP" },
      { name: "probes", containerPort: PORTS.probes, protocol: "TCP" },
    ],
    livenessProbe: { httpGet: { path: "/healthz", port: "probes" }, initialDelaySeconds: 15, periodSeconds: 20, failureThreshold: 3 },
    readinessProbe: { httpGet: { path: "/readyz", port: "probes" }, periodSeconds: 10, failureThreshold: 3 },
    resources: { requests: { cpu: "100m", memory: "256Mi" }, limits: { memory: "1Gi" } },
    securityContext: {
      runAsNonRoot: true,
      readOnlyRootFilesystem: true,
      allowPrivilegeEscalation: false,
      capabilities: { drop: ["ALL"] },
    },
    volumeMounts: [
      { name: "config", mountPath: MOUNTS.config, readOnly: true },
      { name: "work", mountPath: "/work" },
      { name: "tmp", mountPath: "/tmp" },
      ...others.map((c) => ({
        name: kubeconfigSecret(c.name),
        mountPath: kubeconfigPath(c.name).replace(/\/config$/, ""),
        readOnly: true,
      })),
    ],
  };
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: NAME, namespace: options.namespace, labels: LABELS },
    spec: {
      replicas: options.replicas,
      selector: { matchLabels: LABELS },
      template: {
        metadata: { labels: LABELS, annotations: { "prometheus.io/scrape": "true", "prometheus.io/port": String(PORTS.metrics) } },
        spec: {
          serviceAccountName: NAME,
          // A push in progress finishes before the Lease is released (SIGTERM).
          terminationGracePeriodSeconds: 60,
          securityContext: {
            runAsNonRoot: true,
            runAsUser: 1000,
            runAsGroup: 1000,
            fsGroup: 1000,
            seccompProfile: { type: "RuntimeDefault" },
          },
          // The replicas on different nodes where the scheduler can: a node lost takes one of them.
          affinity: {
            podAntiAffinity: {
              preferredDuringSchedulingIgnoredDuringExecution: [
                { weight: 100, podAffinityTerm: { topologyKey: "kubernetes.io/hostname", labelSelector: { matchLabels: LABELS } } },
              ],
            },
          },
          containers: [container],
          volumes: [
            { name: "config", configMap: { name: "kedge-config", items: packed.items } },
            { name: "work", emptyDir: {} },
            { name: "tmp", emptyDir: {} },
            ...others.map((c) => ({ name: kubeconfigSecret(c.name), secret: { secretName: kubeconfigSecret(c.name) } })),
          ],
        },
      },
    },
  };
}

/** Every object, in the order `kubectl apply` creates them (the Namespace first). */
export function controllerManifests(edge: EdgeConfig, options: ManifestOptions, packed: PackedConfig, home: string | undefined): Json[] {
  const namespace = options.namespace;
  const subject = [{ kind: "ServiceAccount", name: NAME, namespace }];
  const rbac = (kind: "ClusterRole" | "Role") => ({
    apiGroup: "rbac.authorization.k8s.io",
    kind,
    name: kind === "Role" ? "kedge-leader-election" : NAME,
  });
  return [
    { apiVersion: "v1", kind: "Namespace", metadata: { name: namespace } },
    { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: NAME, namespace, labels: LABELS } },
    // Reading and writing status in the cluster it runs in: only when it reads that cluster through its API.
    ...(home
      ? [
          {
            apiVersion: "rbac.authorization.k8s.io/v1",
            kind: "ClusterRole",
            metadata: { name: NAME, labels: LABELS },
            rules: clusterRoleRules(),
          },
          {
            apiVersion: "rbac.authorization.k8s.io/v1",
            kind: "ClusterRoleBinding",
            metadata: { name: NAME, labels: LABELS },
            roleRef: rbac("ClusterRole"),
            subjects: subject,
          },
        ]
      : []),
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "Role",
      metadata: { name: "kedge-leader-election", namespace, labels: LABELS },
      rules: LEASE_RULES,
    },
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "RoleBinding",
      metadata: { name: "kedge-leader-election", namespace, labels: LABELS },
      roleRef: rbac("Role"),
      subjects: subject,
    },
    { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "kedge-config", namespace, labels: LABELS }, data: packed.data },
    deployment(edge, options, packed, home),
  ];
}

/** The commands that create the Secrets the Deployment reads (printed as comments: kedge never holds their values). */
export function secretCommands(edge: EdgeConfig, namespace: string, home: string | undefined): string[] {
  return [
    `kubectl -n ${namespace} create secret generic ${CLOUDFLARE_SECRET} --from-literal=api-token=<API token with Workers KV Storage:Edit> --from-literal=account-id=<account id>`,
    ...edge.clusters
      .filter((c) => c.kubeContext && c.name !== home)
      .map(
        (c) =>
          `kubectl -n ${namespace} create secret generic ${kubeconfigSecret(c.name)} --from-file=config=<a kubeconfig with context ${c.kubeContext}, for cluster ${c.name}>`,
      ),
  ];
}
