/**
 * @module What an API server serves of the kinds kedge reads, as kubectl finds out (discovery): each
 * group's preferred version, and in it the resource (plural name, namespaced or not) of each kind.
 */
import { READ_KINDS } from "../../src/compile/input/kinds";
import type { ApiAnswer } from "./api-client";

/** One resource of the API: where its collection is, and which kind it holds. */
export interface Listing {
  kind: string;
  group: string;
  version: string;
  plural: string;
  namespaced: boolean;
  /** The collection across namespaces, e.g. `/apis/gateway.networking.k8s.io/v1/httproutes`. */
  path: string;
}

/** The path of one object of a listing, and of a subresource of it (`status`). */
export function objectPath(listing: Listing, namespace: string, name: string, subresource?: string): string {
  const base = listing.group === "" ? `/api/${listing.version}` : `/apis/${listing.group}/${listing.version}`;
  const scope = listing.namespaced ? `/namespaces/${encodeURIComponent(namespace)}` : "";
  return `${base}${scope}/${listing.plural}/${encodeURIComponent(name)}${subresource ? `/${subresource}` : ""}`;
}

/** The listings of the kinds kedge reads; `ask` answers a GET (and throws when the server cannot be reached). */
export async function discoverListings(ask: (path: string) => Promise<ApiAnswer>): Promise<Listing[]> {
  const wanted = new Map<string, Set<string>>();
  for (const [kind, groups] of Object.entries(READ_KINDS)) for (const g of groups) wanted.set(g, (wanted.get(g) ?? new Set()).add(kind));
  const result: Listing[] = [];
  const resourcesAt = async (group: string, version: string, kinds: Set<string>) => {
    const base = group === "" ? `/api/${version}` : `/apis/${group}/${version}`;
    const answer = await ask(base);
    if (answer.status === 404) return;
    const list = JSON.parse(answer.body) as { resources?: { name: string; kind: string; namespaced?: boolean }[] };
    for (const r of list.resources ?? [])
      if (!r.name.includes("/") && kinds.has(r.kind))
        result.push({ kind: r.kind, group, version, plural: r.name, namespaced: r.namespaced ?? true, path: `${base}/${r.name}` });
  };
  await resourcesAt("", "v1", wanted.get("") ?? new Set());
  const groups = JSON.parse((await ask("/apis")).body) as { groups?: { name: string; preferredVersion?: { version: string } }[] };
  for (const group of groups.groups ?? []) {
    const kinds = wanted.get(group.name);
    if (kinds && group.preferredVersion) await resourcesAt(group.name, group.preferredVersion.version, kinds);
  }
  return result;
}
