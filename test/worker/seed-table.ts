/** Compiles YAML and publishes it into the Worker's real KV the way the sync does (blob, then pointer). */
import { env } from "cloudflare:workers";
import { canonicalJson } from "../../src/table/canonical-json";
import { KV_KEYS } from "../../src/table/kv-keys";
import type { CompiledEndpoint, RouteTable } from "../../src/table/route-table";
import { compileYaml } from "./compile";
import { EDGE_YAML } from "../support/conformance-infra";

export async function publishTable(table: RouteTable): Promise<void> {
  await env.ROUTES.put(KV_KEYS.blob(table.name, table.version), canonicalJson(table));
  await env.ROUTES.put(
    KV_KEYS.current(table.name),
    JSON.stringify({ version: table.version, schemaVersion: table.schemaVersion, updatedAt: new Date().toISOString() }),
  );
}

/** Compiles the resources of cluster c1 and publishes them; returns the table. */
export async function seedYaml(resources: string): Promise<RouteTable> {
  const { table } = await compileYaml(EDGE_YAML, { c1: resources });
  await publishTable(table);
  return table;
}

/**
 * The table as if altered after the sync (or written by hand): the endpoints of backend `backendId` that
 * `which` picks turned into external ones, under an egress allow-list none of them is in. A new version
 * (ending in `tag`) so the Worker loads it.
 */
export function withDisallowedEndpoints(
  table: RouteTable,
  backendId: string,
  tag: string,
  which: (e: CompiledEndpoint) => boolean = () => true,
): RouteTable {
  const tampered = structuredClone(table);
  tampered.egress = { allowedHostnames: ["api.partner.example"] };
  const backend = tampered.backends[backendId]!;
  backend.endpoints = backend.endpoints.map((e) => (which(e) ? { ...e, external: true as const } : e));
  tampered.version = `${table.version.slice(0, 20 - tag.length)}${tag}`;
  return tampered;
}
