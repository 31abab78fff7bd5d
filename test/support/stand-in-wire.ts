/**
 * @module The stand-in API server's wire formats that need none of its state: discovery documents (`/api`,
 * `/apis`, each group version's APIResourceList), Status bodies, RFC 7386 merge patches, and a kubeconfig
 * that names stand-ins as contexts.
 */
import type { StandInResource } from "./kube-api-stand-in";
import { clusterScoped } from "./kube-api-stand-in";

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

/** RFC 7386 JSON merge patch: objects merge key by key, null deletes, anything else replaces. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return patch;
  const out: Json = isObject(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

export const statusBody = (code: number, reason: string, message: string) => ({
  kind: "Status",
  apiVersion: "v1",
  metadata: {},
  status: "Failure",
  message,
  reason,
  code,
});

/** The discovery document at `path` for `resources`, or null when `path` is not one. */
export function discoveryAnswer(resources: StandInResource[], path: string): Json | null {
  if (path === "/api") return { kind: "APIVersions", versions: ["v1"], serverAddressByClientCIDRs: [] };
  const groups = [...new Set(resources.filter((r) => r.group !== "").map((r) => `${r.group}/${r.version}`))];
  if (path === "/apis")
    return {
      kind: "APIGroupList",
      apiVersion: "v1",
      groups: groups.map((gv) => {
        const [name, version] = gv.split("/") as [string, string];
        return { name, versions: [{ groupVersion: gv, version }], preferredVersion: { groupVersion: gv, version } };
      }),
    };
  const baseOf = (r: StandInResource) => (r.group === "" ? `/api/${r.version}` : `/apis/${r.group}/${r.version}`);
  const base = resources.find((r) => path === baseOf(r));
  if (!base) return null;
  const sameVersion = resources.filter((r) => r.group === base.group && r.version === base.version);
  return {
    kind: "APIResourceList",
    apiVersion: "v1",
    groupVersion: base.group === "" ? base.version : `${base.group}/${base.version}`,
    resources: sameVersion.flatMap((r) => [
      {
        name: r.plural,
        singularName: "",
        namespaced: !clusterScoped(r),
        kind: r.kind,
        verbs: ["create", "delete", "get", "list", "patch", "update", "watch"],
      },
      { name: `${r.plural}/status`, singularName: "", namespaced: !clusterScoped(r), kind: r.kind, verbs: ["get", "patch", "update"] },
    ]),
  };
}

/** A kubeconfig with one context per stand-in (name → server URL), all with the same bearer token. */
export function kubeconfigFor(contexts: Record<string, string>, token: string): string {
  const entries = Object.entries(contexts);
  return JSON.stringify({
    apiVersion: "v1",
    kind: "Config",
    // Plain HTTP on loopback: client-node (like kubectl) accepts it only with TLS verification off.
    clusters: entries.map(([name, server]) => ({ name, cluster: { server, "insecure-skip-tls-verify": true } })),
    users: [{ name: "kedge", user: { token } }],
    contexts: entries.map(([name]) => ({ name, context: { cluster: name, user: "kedge" } })),
    "current-context": entries[0]?.[0] ?? "",
  });
}
