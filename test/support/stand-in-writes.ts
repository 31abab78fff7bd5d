/**
 * @module The stand-in API server's writes and paged lists, as the API server answers them: POST creates
 * (409 AlreadyExists, 422 Invalid with the causes stand-in-admission.ts finds, 404 for a namespace that does
 * not exist when the stand-in is strict about them), PUT replaces with optimistic concurrency (the body's
 * metadata.resourceVersion must be the object's, else 409 Conflict: what leader election's Lease updates
 * rely on), DELETE removes; a List asked with `limit` comes in pages joined by `continue` tokens.
 */
import { randomUUID } from "node:crypto";
import type { KubeStandIn, Obj, StandInResource } from "./kube-api-stand-in";
import { clusterScoped } from "./kube-api-stand-in";
import { mergePatch, statusBody } from "./stand-in-wire";
import { admissionProblems } from "./stand-in-admission";

type Json = Record<string, unknown>;
type Send = (status: number, payload: unknown) => void;

/** Kinds every stand-in serves besides a test's own: what `kedge manifests` prints, and the Lease. */
export const BUILTIN_RESOURCES: Omit<StandInResource, "items">[] = [
  { group: "", version: "v1", plural: "serviceaccounts", kind: "ServiceAccount" },
  { group: "", version: "v1", plural: "configmaps", kind: "ConfigMap" },
  { group: "", version: "v1", plural: "secrets", kind: "Secret" },
  { group: "rbac.authorization.k8s.io", version: "v1", plural: "clusterroles", kind: "ClusterRole" },
  { group: "rbac.authorization.k8s.io", version: "v1", plural: "clusterrolebindings", kind: "ClusterRoleBinding" },
  { group: "rbac.authorization.k8s.io", version: "v1", plural: "roles", kind: "Role" },
  { group: "rbac.authorization.k8s.io", version: "v1", plural: "rolebindings", kind: "RoleBinding" },
  { group: "apps", version: "v1", plural: "deployments", kind: "Deployment" },
  { group: "coordination.k8s.io", version: "v1", plural: "leases", kind: "Lease" },
];

/** What a write needs of the stand-in. */
export interface WriteContext {
  standIn: KubeStandIn;
  nextVersion(): string;
  /** A status patch about to be applied: kept for the test (`statusWrites`). */
  statusPatched(path: string, patch: Json): void;
}

const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);
const apiVersionOf = (r: StandInResource) => (r.group === "" ? r.version : `${r.group}/${r.version}`);
const qualified = (r: StandInResource) => (r.group === "" ? r.plural : `${r.plural}.${r.group}`);

function parse(body: string, send: Send): Json | null {
  try {
    const value: unknown = JSON.parse(body);
    if (isObject(value)) return value;
  } catch {
    // answered below
  }
  send(400, statusBody(400, "BadRequest", "the body is not a JSON object"));
  return null;
}

/** The causes why `o` cannot be written at `namespace` (from the path), or an answer already sent. */
function admitted(ctx: WriteContext, r: StandInResource, namespace: string | undefined, o: Json, send: Send): boolean {
  const metadata = isObject(o.metadata) ? o.metadata : {};
  if (!clusterScoped(r)) {
    if (namespace === undefined)
      return (send(404, statusBody(404, "NotFound", `${r.kind} is namespaced: write it under /namespaces/<ns>/`)), false);
    if (metadata.namespace !== undefined && metadata.namespace !== namespace)
      return (
        send(400, statusBody(400, "BadRequest", "the namespace of the provided object does not match the namespace sent on the request")),
        false
      );
    if (ctx.standIn.options.strictNamespaces && !ctx.standIn.object("namespaces", "", namespace))
      return (send(404, statusBody(404, "NotFound", `namespaces "${namespace}" not found`)), false);
  }
  const causes = admissionProblems(r.kind, apiVersionOf(r), o);
  if (causes.length === 0) return true;
  send(422, {
    ...statusBody(422, "Invalid", `${r.kind} "${String(metadata.name)}" is invalid: ${causes.join(", ")}`),
    details: { kind: r.plural, name: metadata.name, causes: causes.map((message) => ({ message })) },
  });
  return false;
}

/** POST to a collection: the object created (201), as the API server stamps it; with `dryRun` (?dryRun=All), checked and not kept. */
export function createObject(
  ctx: WriteContext,
  r: StandInResource,
  namespace: string | undefined,
  body: string,
  send: Send,
  dryRun = false,
): void {
  const o = parse(body, send);
  if (!o || !admitted(ctx, r, namespace, o, send)) return;
  const metadata: Json = { ...(o.metadata as Json), ...(clusterScoped(r) ? {} : { namespace }) };
  const byName = ctx.standIn.objectsOf(r.plural);
  const key = `${clusterScoped(r) ? "" : namespace}/${String(metadata.name)}`;
  if (byName.has(key)) return send(409, statusBody(409, "AlreadyExists", `${qualified(r)} "${String(metadata.name)}" already exists`));
  const { status: _status, ...fields } = o;
  const created = ctx.standIn.stamp(r, { ...fields, metadata }, 1);
  if (dryRun) return send(201, { apiVersion: apiVersionOf(r), kind: r.kind, ...created });
  byName.set(key, created);
  ctx.standIn.record(r.plural, "ADDED", created);
  send(201, { apiVersion: apiVersionOf(r), kind: r.kind, ...created });
}

/** PUT of one object: replaced when its resourceVersion precondition holds (200), else 409 Conflict; not kept with `dryRun`. */
export function replaceObject(
  ctx: WriteContext,
  r: StandInResource,
  namespace: string,
  name: string,
  body: string,
  send: Send,
  dryRun = false,
): void {
  const o = parse(body, send);
  if (!o || !admitted(ctx, r, clusterScoped(r) ? undefined : namespace, o, send)) return;
  const metadata = (o.metadata ?? {}) as Json;
  if (metadata.name !== name) return send(400, statusBody(400, "BadRequest", "the name of the object does not match the name on the URL"));
  const byName = ctx.standIn.objectsOf(r.plural);
  const key = `${clusterScoped(r) ? "" : namespace}/${name}`;
  const current = byName.get(key);
  if (!current) return send(404, statusBody(404, "NotFound", `${qualified(r)} "${name}" not found`));
  if (metadata.resourceVersion !== undefined && metadata.resourceVersion !== current.metadata.resourceVersion)
    return send(
      409,
      statusBody(
        409,
        "Conflict",
        `Operation cannot be fulfilled on ${qualified(r)} "${name}": the object has been modified; please apply your changes to the latest version and try again`,
      ),
    );
  const { status: _status, ...fields } = o;
  const specChanged = JSON.stringify(current.spec) !== JSON.stringify(fields.spec);
  const replaced = ctx.standIn.stamp(
    r,
    { ...fields, ...(current.status ? { status: current.status } : {}), metadata: { ...metadata, uid: current.metadata.uid } },
    current.metadata.generation + (specChanged ? 1 : 0),
  );
  if (dryRun) return send(200, { apiVersion: apiVersionOf(r), kind: r.kind, ...replaced });
  byName.set(key, replaced);
  ctx.standIn.record(r.plural, "MODIFIED", replaced);
  send(200, { apiVersion: apiVersionOf(r), kind: r.kind, ...replaced });
}

/** DELETE of one object. */
export function deleteObject(ctx: WriteContext, r: StandInResource, namespace: string, name: string, send: Send): void {
  const byName = ctx.standIn.objectsOf(r.plural);
  const key = `${clusterScoped(r) ? "" : namespace}/${name}`;
  const current = byName.get(key);
  if (!current) return send(404, statusBody(404, "NotFound", `${qualified(r)} "${name}" not found`));
  byName.delete(key);
  ctx.standIn.record(r.plural, "DELETED", { ...current, metadata: { ...current.metadata, resourceVersion: ctx.nextVersion() } });
  send(200, { kind: "Status", apiVersion: "v1", metadata: {}, status: "Success" });
}

/**
 * One page of `items` as `url` asks (`limit`, `continue`), in a stable order: the first page keeps the
 * list as it is now for the pages after it (the API server reads them from one snapshot), a token not
 * kept (any, after expireContinueTokens) is expired. Without `limit`, every item.
 */
export function pageOf(standIn: KubeStandIn, items: Obj[], url: URL): { items: Obj[]; continue?: string } | { expired: string } {
  const limit = Number(url.searchParams.get("limit") || 0);
  const token = url.searchParams.get("continue");
  let snapshot: Obj[];
  let offset = 0;
  let id: string;
  if (token) {
    const [tokenId = "", at = "0"] = Buffer.from(token, "base64url").toString().split(":");
    const kept = standIn.pagedLists.get(tokenId);
    if (!kept)
      return {
        expired:
          "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.",
      };
    snapshot = kept;
    offset = Number(at);
    id = tokenId;
  } else {
    snapshot = [...items].sort((a, b) =>
      `${a.metadata.namespace ?? ""}/${a.metadata.name}`.localeCompare(`${b.metadata.namespace ?? ""}/${b.metadata.name}`),
    );
    id = randomUUID();
  }
  if (!(limit > 0)) return { items: snapshot.slice(offset) };
  const end = offset + limit;
  if (end >= snapshot.length) {
    standIn.pagedLists.delete(id);
    return { items: snapshot.slice(offset) };
  }
  standIn.pagedLists.set(id, snapshot);
  return { items: snapshot.slice(offset, end), continue: Buffer.from(`${id}:${end}`).toString("base64url") };
}

/** A JSON merge patch of an object's status, with a resourceVersion precondition (409 Conflict). */
export function patchStatus(
  ctx: WriteContext,
  r: StandInResource,
  namespace: string,
  name: string,
  contentType: string | undefined,
  body: string,
  send: Send,
): void {
  const key = `${clusterScoped(r) ? "" : namespace}/${name}`;
  const apiVersion = apiVersionOf(r);
  if (ctx.standIn.options.forbiddenStatus?.includes(r.plural))
    return send(
      403,
      statusBody(
        403,
        "Forbidden",
        `${r.plural}.${r.group} "${name}" is forbidden: User "kedge" cannot patch resource "${r.plural}/status" in API group "${r.group}"`,
      ),
    );
  ctx.standIn.beforeStatusPatch?.(r.plural, namespace, name);
  const latest = ctx.standIn.objectsOf(r.plural).get(key)!;
  if (!contentType?.startsWith("application/merge-patch+json"))
    return send(415, statusBody(415, "UnsupportedMediaType", `the stand-in takes application/merge-patch+json, not ${contentType}`));
  const patch = JSON.parse(body) as Json & { metadata?: { resourceVersion?: string } };
  const precondition = patch.metadata?.resourceVersion;
  if (precondition !== undefined && precondition !== latest.metadata.resourceVersion)
    return send(
      409,
      statusBody(
        409,
        "Conflict",
        `Operation cannot be fulfilled on ${r.plural}.${r.group} "${name}": the object has been modified; please apply your changes to the latest version and try again`,
      ),
    );
  ctx.statusPatched(`${namespace}/${name}`, patch);
  // The status subresource changes status only, whatever else the patch names.
  const status = mergePatch(latest.status, patch.status) as Json;
  const updated = { ...latest, status, metadata: { ...latest.metadata, resourceVersion: ctx.nextVersion() } };
  ctx.standIn.objectsOf(r.plural).set(key, updated);
  ctx.standIn.record(r.plural, "MODIFIED", updated);
  send(200, { apiVersion, kind: r.kind, ...updated });
}

/**
 * A PATCH of an object itself (not its status), as `kubectl apply` sends one to an object that exists: a JSON
 * merge patch, and a strategic merge patch read as one (lists replaced whole: enough for a re-apply of the
 * same manifests), checked like a replacement.
 */
export function patchObject(
  ctx: WriteContext,
  r: StandInResource,
  namespace: string,
  name: string,
  contentType: string | undefined,
  body: string,
  send: Send,
  dryRun = false,
): void {
  if (!/^application\/(merge-patch|strategic-merge-patch)\+json/.test(contentType ?? ""))
    return send(415, statusBody(415, "UnsupportedMediaType", `the stand-in takes merge patches, not ${contentType}`));
  const current = ctx.standIn.objectsOf(r.plural).get(`${clusterScoped(r) ? "" : namespace}/${name}`);
  if (!current) return send(404, statusBody(404, "NotFound", `${qualified(r)} "${name}" not found`));
  const patch = parse(body, send);
  if (!patch) return;
  const merged = mergePatch({ apiVersion: apiVersionOf(r), kind: r.kind, ...current }, patch) as Json;
  replaceObject(ctx, r, namespace, name, JSON.stringify(merged), send, dryRun);
}
