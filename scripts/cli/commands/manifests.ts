/** @module `kedge manifests`: the Kubernetes objects that run `kedge sync --watch` as a controller in a cluster, for `kubectl apply -f -`. */
import { stringify } from "yaml";
import { loadConfig } from "../../config/load-config";
import { packageVersion } from "../../lib/package-files";
import { UserError } from "../../lib/user-error";
import { controllerManifests, homeCluster, secretCommands } from "../../install/manifests";
import { packConfig } from "../../install/packaged-config";
import { command, EXIT } from "../command";
import { OUTPUT_FLAGS, type OutputOptions } from "../flags";
import { findWranglerConfig, readWranglerFacts } from "../../config/wrangler-config";
import { kvNamespaceProblem } from "../../checks/remote-preflight";
import { tableNameProblem } from "../../checks/deployment-checks";

interface ManifestsOptions extends OutputOptions {
  config: string;
  wranglerConfig: string;
  env?: string;
  namespace: string;
  cluster?: string;
  image?: string;
  replicas: number;
}

/** A namespace name (RFC 1123 label). */
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

export const manifestsCommand = command<ManifestsOptions>({
  name: "manifests",
  summary: "print the Kubernetes objects that run `kedge sync --watch` in a cluster (for kubectl apply -f -)",
  description:
    "Prints, from kedge.yaml, what runs the sync as a controller in one of its live clusters: the Namespace, a ServiceAccount, a ClusterRole with every rule kedge uses there (reading the kinds it reads, writing their status) and a Role for leader election's Leases, a ConfigMap with the config and the wrangler config, and a Deployment of two replicas with --leader-elect, probes, metrics, resource requests and a non-root read-only container. The Secrets it reads (the Cloudflare API token and account, a kubeconfig for each other live cluster) are referenced, never printed: the commands that create them are in the header.",
  flags: [
    { flags: "--config <dir>", description: "config folder with kedge.yaml and clusters/<name>/", default: "config" },
    {
      flags: "--wrangler-config <file>",
      description: "wrangler config file (its KV namespace is where the controller pushes)",
      defaultText: "wrangler.json, wrangler.jsonc or wrangler.toml, the first that exists",
    },
    { flags: "-e, --env <name>", description: "the wrangler environment ([env.NAME]) the controller pushes to" },
    { flags: "--namespace <namespace>", description: "where the controller runs (and keeps its Lease)", default: "kedge-system" },
    {
      flags: "--cluster <name>",
      description: "the live cluster of kedge.yaml the controller runs in",
      defaultText: "the first live cluster",
    },
    { flags: "--image <image>", description: "the controller's image (built from the Dockerfile)", defaultText: "kedge:<this version>" },
    {
      flags: "--replicas <n>",
      description: "replicas of the Deployment (one leads, the others stand by)",
      default: 2,
      parse: (text) => {
        const n = /^\d{1,2}$/.test(text) ? Number(text) : Number.NaN;
        if (!(n >= 1))
          throw new UserError(`--replicas ${JSON.stringify(text)} is not a number of replicas from 1 to 99`, "for example --replicas 2");
        return n;
      },
    },
    ...OUTPUT_FLAGS,
  ],
  exitCodes: { 0: "printed", 2: "a config, wrangler config or flag that cannot be used; nothing printed" },
  examples: [
    "kedge manifests | kubectl apply -f -",
    "kedge manifests --cluster us-east --env production --image registry.example.com/kedge:0.1.0",
    "kedge manifests | kubectl apply --dry-run=server -f -",
  ],
  run: async (options, _args, io) => {
    if (!DNS_LABEL.test(options.namespace))
      throw new UserError(
        `--namespace ${JSON.stringify(options.namespace)} is not a namespace name`,
        "a lowercase RFC 1123 label, e.g. --namespace kedge-system",
      );
    const { edge } = loadConfig(options.config);
    const home = homeCluster(edge, options.cluster);
    const wranglerConfig = options.wranglerConfig ?? findWranglerConfig();
    // The KV namespace (of --env) must be there: the controller pushes to it.
    const facts = readWranglerFacts(wranglerConfig, options.env);
    // What would make the running controller fail or push in vain, told now rather than in its logs.
    const described = options.env === undefined ? wranglerConfig : `environment "${options.env}" of ${wranglerConfig}`;
    const namespace = kvNamespaceProblem(wranglerConfig, options.env, facts.kvNamespaceId);
    if (namespace) io.note(`! ${namespace.problem}: the controller's pushes (--remote) are refused until it is one; ${namespace.fix}`);
    const nameProblem = tableNameProblem(facts, edge.name, described);
    if (nameProblem) io.note(`! ${nameProblem}`);
    const packed = packConfig(options.config, edge, wranglerConfig, home);
    const manifestOptions = {
      namespace: options.namespace,
      ...(home ? { home } : {}),
      image: options.image ?? `kedge:${packageVersion()}`,
      replicas: options.replicas,
      ...(options.env ? { env: options.env } : {}),
    };
    const items = controllerManifests(edge, manifestOptions, packed, home);
    const header = [
      `# kedge ${packageVersion()}: run \`kedge sync --watch\` for table ${edge.name} in ${home ? `cluster ${home}` : "a cluster"}, namespace ${options.namespace}.`,
      "# Apply with: kedge manifests | kubectl apply -f -",
      "# First create the Secrets the Deployment reads (their values are never printed here):",
      ...secretCommands(edge, options.namespace, home).map((c) => `#   ${c}`),
    ];
    return {
      code: EXIT.OK,
      data: { apiVersion: "v1", kind: "List", items },
      text: [header.join("\n"), ...items.map((o) => `---\n${stringify(o, { lineWidth: 0, aliasDuplicateObjects: false }).trimEnd()}`)],
    };
  },
});
