/** Compiles YAML the way the sync does, on the node side (global-setup's compile server): the Worker never loads the compiler. */
import { inject } from "vitest";
import type { CompileResult } from "../../src/compile/compile-route-table";
import type { StoragePlan, StoredText } from "../../src/table/shard-table";
import type { RouteTable } from "../../src/table/route-table";

/** A storage plan as the compile server sends it: each shard's value and text made. */
export interface SentPlan extends Omit<StoragePlan, "shards"> {
  shards: StoredText<RouteTable>[];
}

async function ask<T>(body: object): Promise<T> {
  const response = await fetch(`http://127.0.0.1:${inject("compilerPort")}/compile`, { method: "POST", body: JSON.stringify(body) });
  if (!response.ok) throw new Error(`compile server: ${await response.text()}`);
  return (await response.json()) as T;
}

/** `clusters` maps a cluster name to its resources' YAML. */
export const compileYaml = (edge: string, clusters: Record<string, string>): Promise<CompileResult> => ask({ edge, clusters });

/** The table compiled and planned for storage with shards of at most `shardBytes`. */
export const compilePlanned = (
  edge: string,
  clusters: Record<string, string>,
  shardBytes: number,
): Promise<CompileResult & { plan: { ok: true; plan: SentPlan } | { ok: false; problem: string } }> => ask({ edge, clusters, shardBytes });
