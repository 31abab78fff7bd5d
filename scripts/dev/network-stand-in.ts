/**
 * @module Local stand-ins for the Workers VPC network bindings a config names (DESIGN.md §11). The real
 * binding is remote-only: nothing emulates it locally, and a Worker without it answers
 * NETWORK_BINDING_MISSING. `npm start`, the end-to-end tests and the bench give kedge one stand-in Worker per
 * binding instead, with the binding's shape (a Fetcher whose URL names the private address; fetch() throws
 * when the address cannot be reached), each mapping its cluster's private addresses to loopback origins, so
 * two clusters with the same pod IP reach two different origins.
 */
import { join } from "node:path";
import type { V4WorkerOptions as WorkerOptions } from "miniflare";
import type { RouteTable } from "../../src/table/route-table";

const STAND_IN_SCRIPT = join(import.meta.dirname, "network-stand-in-worker.mjs");

/** Per binding name: private `address:port` → the loopback `host:port` of the origin standing in for it. */
export type NetworkAddresses = Record<string, Record<string, string>>;

/** A private address as the stand-in keys it (`10.4.2.17:8080`, `[fd00::1]:8080`). */
export const networkAddress = (host: string, port: number): string => `${host.includes(":") ? `[${host}]` : host}:${port}`;

/** The stand-in Worker's name for a binding. */
const standInName = (binding: string) => `kedge-network-${binding.toLowerCase().replaceAll("_", "-")}`;

/** The endpoints each binding reaches in a compiled table, once each: what needs a local origin. */
export function networkEndpoints(table: RouteTable): Map<string, { network: string; address: string; cluster: string; id: string }> {
  const found = new Map<string, { network: string; address: string; cluster: string; id: string }>();
  for (const backend of Object.values(table.backends))
    for (const e of backend.endpoints) {
      if (!e.network) continue;
      const address = networkAddress(e.host, e.port);
      const key = `${e.network} ${address}`;
      if (!found.has(key)) found.set(key, { network: e.network, address, cluster: e.cluster, id: e.id });
    }
  return found;
}

/**
 * The stand-in Workers and the service bindings that give kedge each of them under the binding's name.
 * Every binding named gets a stand-in, even one with no address yet (kedge then has the binding, as deployed).
 */
export function networkStandIns(addresses: NetworkAddresses): { workers: WorkerOptions[]; serviceBindings: Record<string, string> } {
  const workers: WorkerOptions[] = [];
  const serviceBindings: Record<string, string> = {};
  for (const [binding, map] of Object.entries(addresses)) {
    const name = standInName(binding);
    serviceBindings[binding] = name;
    workers.push({
      name,
      modules: [{ type: "ESModule", path: STAND_IN_SCRIPT }],
      compatibilityDate: "2026-04-20",
      bindings: { ADDRESSES: map, NETWORK: binding },
    });
  }
  return { workers, serviceBindings };
}
