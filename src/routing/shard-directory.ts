/**
 * @module Which shard of a sharded table holds a host: the root's directory as maps, resolved the same way
 * the matcher resolves a host in its index (exact, longest wildcard suffix, catch-all).
 */
import type { Protocol, ShardDirectory, ShardedTable } from "../table/route-table";
import { lookupHost } from "./hostname-match";

export interface PreparedDirectory {
  exact: Map<string, number>;
  wildcard: Map<string, number>;
  any?: number;
}

export type PreparedDirectories = Partial<Record<Protocol, PreparedDirectory>>;

export function prepareDirectories(root: ShardedTable): PreparedDirectories {
  const prepared: PreparedDirectories = {};
  for (const [protocol, d] of Object.entries(root.directory) as [Protocol, ShardDirectory][]) {
    prepared[protocol] = { exact: new Map(Object.entries(d.exact)), wildcard: new Map(Object.entries(d.wildcard)), any: d.any };
  }
  return prepared;
}

/** The shard holding the host's candidates, or undefined when no route of the protocol names it. */
export function shardFor(directories: PreparedDirectories, protocol: Protocol, host: string): number | undefined {
  const directory = directories[protocol];
  return directory && (lookupHost(directory.exact, directory.wildcard, host) ?? directory.any);
}
