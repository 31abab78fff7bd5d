/**
 * @module Writes the compiler's verdict back into a cluster read through its API: each object's status
 * through the status subresource, as a JSON merge patch of the fields kedge owns built over the status
 * the object holds now (document.ts), with the object's resourceVersion as a precondition. The
 * Gateway API's status lists (`parents`, `ancestors`) are atomic lists, which server-side apply would
 * replace whole; read-merge-patch keeps another controller's entries, and a write that raced another
 * (409 Conflict) is read and merged again. An unchanged status is not written. A GatewayClass is written
 * only when its controllerName is kedge's. A refused write names the RBAC rule that is missing.
 */
import { KEDGE_CONTROLLER } from "../../../src/compile/input/api-groups";
import { objectRef, type ResourceStatus } from "../../../src/compile/status/diagnostics";
import { apiGroup, isJsonObject, type Manifest } from "../../../src/gateway-api/manifest";
import { type ApiAnswer, ApiUnreachable, type KubeApi, statusMessage } from "../api-client";
import { type Listing, objectPath } from "../discovery";
import { changesStatus, namesController, statusDocument, transitionTime } from "./document";
import { jsonOf } from "../../lib/json";
import { STATUS_HOLDER } from "../api-answers";

/** How many times a write that raced another writer is read, merged and tried again. */
const CONFLICT_TRIES = 5;
/** Objects written at once, per cluster. */
const CONCURRENCY = 8;

export interface StatusWriteProblem {
  /** `HTTPRoute shop/web` */
  object: string;
  problem: string;
  fix?: string;
}

export interface StatusWrites {
  cluster: string;
  written: string[];
  unchanged: number;
  /** Objects kedge does not write (another controller's GatewayClass, an object deleted meanwhile). */
  skipped: string[];
  failed: StatusWriteProblem[];
}

type Json = Record<string, unknown>;
type Outcome = { written: true } | { unchanged: true } | { skipped: string } | { failed: Omit<StatusWriteProblem, "object"> };

/** The rule a forbidden status write lacks, as ClusterRole YAML (config/rbac/kedge-sync.yaml has it). */
const missingRule = (listing: Listing) =>
  `add to the sync's ClusterRole (config/rbac/kedge-sync.yaml): { apiGroups: ["${listing.group}"], resources: ["${listing.plural}/status"], verbs: ["patch"] }`;

interface WriteContext {
  api: KubeApi;
  at: string;
  controller: string;
}

async function writeOne({ api, at, controller }: WriteContext, listing: Listing, s: ResourceStatus): Promise<Outcome> {
  const path = objectPath(listing, s.object.namespace, s.object.name);
  for (let attempt = 1; attempt <= CONFLICT_TRIES; attempt++) {
    const current = await api.request("GET", path);
    if (current.status === 404) return { skipped: "deleted since it was read" };
    if (current.status !== 200) return { failed: refusal(current, listing, "read") };
    const object = jsonOf(current.body, STATUS_HOLDER, `${path}: the object`);
    if (s.object.kind === "GatewayClass" && object.spec?.controllerName !== controller)
      return {
        skipped: `its controllerName is ${JSON.stringify(object.spec?.controllerName)}, not ${controller}: its status is that controller's`,
      };
    const status = statusDocument(s, at, object.status ?? {}, controller);
    if (!changesStatus(status, object.status ?? {})) return { unchanged: true };
    const patch = { metadata: { resourceVersion: object.metadata?.resourceVersion }, status };
    const answer = await api.request("PATCH", `${path}/status`, { type: "application/merge-patch+json", text: JSON.stringify(patch) });
    if (answer.status === 200) return { written: true };
    if (answer.status === 409) continue;
    if (answer.status === 404)
      return {
        failed: {
          problem: `${listing.plural}.${listing.group} has no status subresource here (HTTP 404)`,
          fix: "install the CRD with its status subresource",
        },
      };
    return { failed: refusal(answer, listing, "write") };
  }
  return {
    failed: { problem: `another writer changed it ${CONFLICT_TRIES} times while kedge merged its status`, fix: "the next sync writes it" },
  };
}

function refusal(answer: ApiAnswer, listing: Listing, what: "read" | "write"): Omit<StatusWriteProblem, "object"> {
  const message = statusMessage(answer).slice(0, 200);
  if (answer.status === 401 || answer.status === 403)
    return {
      problem: `not allowed to ${what === "write" ? `patch ${listing.plural}/status` : `get ${listing.plural}`} (HTTP ${answer.status}: ${message})`,
      fix:
        what === "write"
          ? missingRule(listing)
          : `grant get, list and watch on ${listing.plural}.${listing.group} (config/rbac/kedge-sync.yaml)`,
    };
  return { problem: `HTTP ${answer.status}: ${message}` };
}

/** The listing an object's status is written through: its kind at the group its apiVersion names. */
const listingOf = (listings: Listing[], s: ResourceStatus): Listing | undefined =>
  listings.find((l) => l.kind === s.object.kind && l.group === apiGroup(s.object.apiVersion ?? ""));

export interface StatusWriteOptions {
  now?: Date;
  /** The controllerName kedge writes as (kedge.yaml spec.controllerName). */
  controller?: string;
  /**
   * The cluster's objects as last read (with their status): an object whose status would not change is
   * not read again, and one that holds an entry of kedge's that no verdict backs any more has it removed.
   */
  objects?: Manifest[];
}

const idOf = (kind: string, namespace: string, name: string) => `${kind}/${namespace}/${name}`;

/** Verdicts that take kedge's entries off objects that still carry them but got no verdict this time (a route that left kedge's Gateways). */
function withdrawals(objects: Manifest[], statuses: ResourceStatus[], controller: string): ResourceStatus[] {
  const judged = new Set(statuses.map((s) => idOf(s.object.kind, s.object.namespace, s.object.name)));
  return objects
    .filter(
      (m) =>
        isJsonObject(m.raw.status) &&
        namesController(m.raw.status, controller) &&
        !judged.has(idOf(m.kind, m.metadata.namespace, m.metadata.name)),
    )
    .map((m) => ({
      object: objectRef(m),
      conditions: [],
      ...(Array.isArray((m.raw.status as Json).parents) ? { parents: [] } : { ancestors: [] }),
    }));
}

/**
 * Writes every status of `api`'s cluster. Never throws for one object: each outcome is in the report; a
 * server that stops answering midway fails the objects not yet written.
 */
export async function writeClusterStatuses(
  api: KubeApi,
  listings: Listing[],
  statuses: ResourceStatus[],
  options: StatusWriteOptions = {},
): Promise<StatusWrites> {
  const controller = options.controller ?? KEDGE_CONTROLLER;
  const ctx: WriteContext = { api, at: transitionTime(options.now ?? new Date()), controller };
  const report: StatusWrites = { cluster: api.cluster.name, written: [], unchanged: 0, skipped: [], failed: [] };
  const objects = (options.objects ?? []).filter((m) => m.cluster === api.cluster.name);
  const known = new Map(
    objects.map((m) => [idOf(m.kind, m.metadata.namespace, m.metadata.name), isJsonObject(m.raw.status) ? m.raw.status : {}]),
  );
  const judged = statuses.filter((s) => s.object.cluster === api.cluster.name);
  const mine = [...judged, ...withdrawals(objects, judged, controller)];
  let next = 0;
  const worker = async () => {
    while (next < mine.length) {
      const s = mine[next++]!;
      const name = `${s.object.kind} ${s.object.namespace ? `${s.object.namespace}/` : ""}${s.object.name}`;
      const listing = listingOf(listings, s);
      if (!listing) {
        report.skipped.push(`${name}: its kind is not served by this API server`);
        continue;
      }
      // Unchanged against the status last read: nothing to read again or write.
      const before = known.get(idOf(s.object.kind, s.object.namespace, s.object.name));
      if (before && s.object.kind !== "GatewayClass" && !changesStatus(statusDocument(s, ctx.at, before, controller), before)) {
        report.unchanged++;
        continue;
      }
      let outcome: Outcome;
      try {
        outcome = await writeOne(ctx, listing, s);
      } catch (error) {
        if (!(error instanceof ApiUnreachable)) throw error;
        outcome = { failed: { problem: error.message, ...(error.hint ? { fix: error.hint } : {}) } };
      }
      if ("written" in outcome) report.written.push(name);
      else if ("unchanged" in outcome) report.unchanged++;
      else if ("skipped" in outcome) report.skipped.push(`${name}: ${outcome.skipped}`);
      else report.failed.push({ object: name, ...outcome.failed });
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, mine.length) }, worker));
  report.written.sort();
  return report;
}
