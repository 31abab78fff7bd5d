/**
 * @module A cluster read through the Kubernetes API (kedge.yaml `kubeContext`) once: like kubectl, ask the
 * API server which versions it serves (discovery), then list every kind kedge reads in all namespaces, in
 * pages of 500 (paged-list.ts). The answers are the API server's JSON lists, read by the same parser as `kubectl get -o json` output. A
 * kind the cluster does not have (its CRD not installed) is skipped. A cluster that cannot be reached, or
 * that refuses the listing, stops the sync with its name and the reason: its objects are never dropped
 * from the table in silence. Other implementations' policy kinds are listed too (discovery.ts); not being
 * allowed to list one of them is a warning.
 */
import type { ClusterSettings } from "../../src/compile/input/edge-config";
import { isAttachedPolicy } from "../../src/compile/input/kinds";
import type { Manifest } from "../../src/gateway-api/manifest";
import { parseManifestFile, type SkippedDocument } from "../../src/gateway-api/parse-manifests";
import { UserError } from "../lib/user-error";
import { type ApiAnswer, ApiUnreachable, KubeApi, statusMessage } from "./api-client";
import { discoverListings, type Listing } from "./discovery";
import { listInPages, type PagedList } from "./paged-list";

export interface ClusterObjects {
  manifests: Manifest[];
  skipped: SkippedDocument[];
}

/**
 * A GET whose refusal stops the read: 401 and 403 name what to grant. A server that is overloaded or
 * failing (429, 5xx) is as good as unreachable: a watch retries it, a one-shot read stops. 200 and 404
 * come back, and 410 too for a page of a list (its continue token expired: paged-list.ts lists again).
 */
export async function readable(api: KubeApi, request: string): Promise<ApiAnswer> {
  const answer = await api.request("GET", request);
  // Messages name the collection, not the page asked for.
  const path = request.split("?")[0]!;
  if (answer.status === 410 && request.includes("continue=")) return answer;
  if (answer.status === 429 || answer.status >= 500)
    throw new ApiUnreachable(
      `${api.where}: ${path} answered HTTP ${answer.status} (${statusMessage(answer).slice(0, 120)})`,
      "the API server is overloaded or failing; check its health",
    );
  if (answer.status === 401 || answer.status === 403)
    throw new UserError(
      `${api.where}: not allowed to read ${path} (HTTP ${answer.status}: ${statusMessage(answer).slice(0, 200)}); nothing was written`,
      "grant the context's user get, list and watch on the kinds kedge reads (config/rbac/kedge-sync.yaml; docs/live-clusters.md)",
    );
  if (answer.status !== 200 && answer.status !== 404)
    throw new UserError(`${api.where}: ${path} answered HTTP ${answer.status}; nothing was written`, "check the API server's health");
  return answer;
}

const where = (api: KubeApi, listing: Listing) => `kube:${api.cluster.kubeContext}${listing.path}`;

/**
 * The objects of one listing's answer (a List, as `kubectl get -o json` prints it). Of another
 * implementation's policy kind, only the policies attached to something (spec.targetRef(s)) matter.
 */
export function objectsOf(api: KubeApi, listing: Listing, body: string): ClusterObjects {
  const parsed = parseManifestFile(api.cluster.name, where(api, listing), body);
  return listing.othersPolicy ? { ...parsed, manifests: parsed.manifests.filter(isAttachedPolicy) } : parsed;
}

/**
 * Lists one listing. Not being allowed to list another implementation's policy kind does not stop the
 * read: its policies then go unchecked, which is said as a warning naming what to grant.
 */
export async function listListing(api: KubeApi, listing: Listing): Promise<PagedList | SkippedDocument> {
  try {
    return await listInPages((path) => readable(api, path), listing.path);
  } catch (error) {
    if (!(error instanceof UserError) || !listing.othersPolicy) throw error;
    return {
      file: where(api, listing),
      line: 0,
      message: `not allowed to list ${listing.kind} (${listing.group}): policies of that kind that target what kedge serves are not checked for being enforced; grant get, list and watch on ${listing.plural}.${listing.group} (docs/live-clusters.md)`,
    };
  }
}

export const isRefusal = (listed: PagedList | SkippedDocument): listed is SkippedDocument => "message" in listed;

/** A live cluster as read: its API and what it serves, for writing status back. */
export interface LiveCluster {
  api: KubeApi;
  listings: Listing[];
}

/** Every object kedge reads from one live cluster. */
export async function readLiveCluster(cluster: ClusterSettings): Promise<ClusterObjects & LiveCluster> {
  const api = KubeApi.forCluster(cluster);
  try {
    const ask = (path: string) => readable(api, path);
    const listings = await discoverListings(ask);
    const read: ClusterObjects & LiveCluster = { manifests: [], skipped: [], api, listings };
    for (const listing of listings) {
      const answer = await listListing(api, listing);
      if (isRefusal(answer)) {
        read.skipped.push(answer);
        continue;
      }
      if (answer.status === 404) continue;
      for (const page of answer.pages) {
        const parsed = objectsOf(api, listing, page.body);
        read.manifests.push(...parsed.manifests);
        read.skipped.push(...parsed.skipped);
      }
    }
    return read;
  } catch (error) {
    if (error instanceof ApiUnreachable) throw new UserError(`${error.message}; nothing was written`, error.hint);
    throw error;
  }
}
