/**
 * @module The config a controller in a cluster reads, packed into a ConfigMap by `kedge manifests`: the
 * user's kedge.yaml with each live cluster re-pointed at what the Pod has (the cluster it runs in at its
 * ServiceAccount, `inClusterContext`; each other live cluster at the kubeconfig its Secret mounts), the
 * wrangler config (the KV namespace the pushes go to), and the folder clusters' manifest files, each key
 * mounted back at its path.
 */
import { existsSync, readFileSync } from "node:fs";
import { basename, join, relative } from "node:path";
import { parseDocument } from "yaml";
import type { EdgeConfig } from "../../src/compile/input/edge-config";
import { filesUnder } from "../config/load-config";
import { UserError } from "../lib/user-error";
import { IN_CLUSTER_CONTEXT } from "../controller/election-settings";

/** Where the ConfigMap is mounted in the Pod, and where each other cluster's kubeconfig Secret is. */
export const MOUNTS = { config: "/etc/kedge", kubeconfigs: "/etc/kedge-kubeconfig" } as const;
/** A ConfigMap holds at most 1 MiB; what is left for its metadata. */
const CONFIG_MAP_BYTES = 1_000_000;

export interface PackedConfig {
  /** ConfigMap data: key → text. */
  data: Record<string, string>;
  /** Where each key is mounted, below MOUNTS.config. */
  items: { key: string; path: string }[];
  /** The config folder and the wrangler config, as the Pod sees them. */
  configDir: string;
  wranglerConfig: string;
}

/** A ConfigMap key for a path: its characters outside [-._a-zA-Z0-9] replaced (unique in `add`). */
const keyOf = (path: string) => path.replace(/[^-._a-zA-Z0-9]/g, "_");

/** The kubeconfig file the Pod mounts for live cluster `name`. */
export const kubeconfigPath = (name: string) => `${MOUNTS.kubeconfigs}/${name}/config`;

/** kedge.yaml as the Pod reads it: `home` through the ServiceAccount, the other live clusters through their Secrets. */
function podKedgeYaml(text: string, edge: EdgeConfig, home: string | undefined): string {
  const doc = parseDocument(text);
  edge.clusters.forEach((c, i) => {
    if (!c.kubeContext) return;
    const at = ["spec", "clusters", i];
    if (c.name === home) {
      doc.setIn([...at, "kubeContext"], IN_CLUSTER_CONTEXT);
      doc.deleteIn([...at, "kubeconfig"]);
    } else doc.setIn([...at, "kubeconfig"], kubeconfigPath(c.name));
  });
  return doc.toString();
}

/** Packs `configDir` (already loaded as `edge`) and `wranglerConfig` for the Pod. */
export function packConfig(configDir: string, edge: EdgeConfig, wranglerConfig: string, home: string | undefined): PackedConfig {
  const data: Record<string, string> = {};
  const items: { key: string; path: string }[] = [];
  const add = (path: string, text: string) => {
    // Two paths can flatten to one key (sub_a.yaml and sub/a.yaml): the later one is numbered, never dropped.
    let key = keyOf(path);
    for (let n = 2; key in data; n++) key = `${keyOf(path)}.${n}`;
    data[key] = text;
    items.push({ key, path });
  };
  add("config/kedge.yaml", podKedgeYaml(readFileSync(join(configDir, "kedge.yaml"), "utf8"), edge, home));
  let wrangler: string;
  try {
    wrangler = readFileSync(wranglerConfig, "utf8");
  } catch {
    throw new UserError(
      `kedge manifests needs the wrangler config (the KV namespace the controller pushes to), and ${wranglerConfig} cannot be read`,
      "run it in your project folder, or name the file with --wrangler-config",
    );
  }
  add(basename(wranglerConfig), wrangler);
  for (const c of edge.clusters.filter((c) => !c.kubeContext)) {
    const dir = join(configDir, "clusters", c.name);
    if (!existsSync(dir)) continue;
    for (const file of filesUnder(dir)) add(`config/clusters/${c.name}/${relative(dir, file)}`, readFileSync(file, "utf8"));
  }
  const bytes = Object.values(data).reduce((n, text) => n + Buffer.byteLength(text), 0);
  if (bytes > CONFIG_MAP_BYTES)
    throw new UserError(
      `the config is ${Math.round(bytes / 1024)} KiB, more than a ConfigMap holds (1 MiB): kedge.yaml, the wrangler config and the folder clusters' files`,
      "read the large clusters live (kubeContext) rather than from folders, or mount the config folder from a volume of your own",
    );
  return { data, items, configDir: `${MOUNTS.config}/config`, wranglerConfig: `${MOUNTS.config}/${basename(wranglerConfig)}` };
}
