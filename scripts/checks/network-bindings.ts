/**
 * @module Before a remote push: every VPC network binding kedge.yaml names must be a `[[vpc_networks]]`
 * block of the Worker's wrangler config, in the environment pushed for (environments do not inherit
 * vpc_networks), with exactly one of `tunnel_id` (a Cloudflare Tunnel's UUID) or `network_id`
 * (`cf1:network`, or `cf1:vnet:<UUID>` for one virtual network). Otherwise the Worker would have no way to
 * the cluster's pods and every request for them would answer 502. A missing block is printed ready to add.
 */
import type { EdgeConfig } from "../../src/compile/input/edge-config";
import type { VpcNetworkBlock, WranglerFacts } from "../config/wrangler-config";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const NETWORK_ID = /^cf1:(network|vnet:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i;

/** The clusters that name each binding, in kedge.yaml's order. */
export function namedNetworks(edge: EdgeConfig): Map<string, string[]> {
  const named = new Map<string, string[]>();
  for (const c of edge.clusters) {
    const binding = c.endpoints.network;
    if (binding) named.set(binding, [...(named.get(binding) ?? []), c.name]);
  }
  return named;
}

/** What is wrong with a present block, or null. */
function blockProblem(block: VpcNetworkBlock): string | null {
  const hasTunnel = block.tunnel_id !== undefined;
  const hasNetwork = block.network_id !== undefined;
  if (hasTunnel === hasNetwork) return "needs exactly one of tunnel_id or network_id";
  if (hasTunnel && !(typeof block.tunnel_id === "string" && UUID.test(block.tunnel_id)))
    return `tunnel_id ${JSON.stringify(block.tunnel_id)} is not a tunnel UUID (cloudflared tunnel list shows it)`;
  if (hasNetwork && !(typeof block.network_id === "string" && NETWORK_ID.test(block.network_id)))
    return `network_id ${JSON.stringify(block.network_id)} is neither cf1:network nor cf1:vnet:<virtual network UUID>`;
  return null;
}

/** The block to add for `binding`, in the config's form and environment. */
function blockToAdd(binding: string, clusters: string[], configPath: string, env: string | undefined): string {
  const id = `<the tunnel UUID of ${clusters.join(", ")}'s cloudflared>`;
  if (configPath.endsWith(".toml")) {
    const table = env === undefined ? "vpc_networks" : `env.${env}.vpc_networks`;
    return [
      `[[${table}]]`,
      `binding = "${binding}"`,
      `tunnel_id = "${id}"   # or network_id = "cf1:vnet:<virtual network UUID>"`,
      "remote = true",
    ].join("\n");
  }
  const entry = `{ "binding": "${binding}", "tunnel_id": "${id}", "remote": true }`;
  return env === undefined ? `"vpc_networks": [${entry}]` : `"env": { "${env}": { "vpc_networks": [${entry}] } }`;
}

/**
 * Every problem with the network bindings kedge.yaml names, each with its fix, or an empty list.
 * `where` names the config and environment, as the other deployment checks do.
 */
export function networkBindingProblems(
  edge: EdgeConfig,
  facts: WranglerFacts,
  configPath: string,
  env: string | undefined,
  where: string,
): string[] {
  const problems: string[] = [];
  for (const [binding, clusters] of namedNetworks(edge)) {
    const who = `cluster${clusters.length === 1 ? "" : "s"} ${clusters.join(", ")}`;
    const blocks = facts.vpcNetworks.filter((b) => b.binding === binding);
    if (blocks.length === 0) {
      const inherited = facts.topLevelVpcNetworks.includes(binding)
        ? ` (the top level declares it, but environments do not inherit vpc_networks)`
        : "";
      problems.push(
        `${who} ${clusters.length === 1 ? "is" : "are"} reached through the VPC network binding ${binding}, which ${where} lacks${inherited}; the Worker could not reach ${clusters.length === 1 ? "its" : "their"} pods. Add:\n${blockToAdd(binding, clusters, configPath, env)}`,
      );
      continue;
    }
    if (blocks.length > 1) problems.push(`${where} declares the vpc_networks binding ${binding} ${blocks.length} times; keep one`);
    const problem = blockProblem(blocks[0]!);
    if (problem) problems.push(`the vpc_networks binding ${binding} of ${where} ${problem}`);
  }
  return problems;
}
