/**
 * @module The RBAC rules kedge uses in a cluster, derived from the lists its code reads, so that what
 * `kedge manifests` grants (and config/rbac/kedge-sync.yaml, which a test holds equal) is every rule the
 * sync and the controller use and no more: get, list and watch on each kind of READ_KINDS and on the
 * other implementations' policy kinds discovery reads; patch on the status of each kind the status book
 * writes; and, in the election's namespace only, get, create and update on Leases (client-go's verbs).
 */
import { READ_KINDS } from "../../src/compile/input/kinds";
import { STATUS_KINDS } from "../../src/compile/status/status-book";
import { KNOWN_OTHERS_POLICIES } from "./discovery";

export interface PolicyRule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
}

/**
 * A kind's resource name, its English plural in lower case as Kubernetes and the Gateway API's CRDs name
 * them (`gateways`, `backendtlspolicies`, `gatewayclasses`): client-go's UnsafeGuessKindToResource
 * (`y` → `ies`, `s` → `ses`, else `s`), except a vowel before the `y` (it would say `gatewaies`).
 */
export function pluralOf(kind: string): string {
  const lower = kind.toLowerCase();
  if (lower.endsWith("s")) return `${lower}es`;
  if (/[^aeiou]y$/.test(lower)) return `${lower.slice(0, -1)}ies`;
  return `${lower}s`;
}

/** Resources by group, in first-seen order of the groups and of the resources. */
function byGroup(entries: [group: string, resource: string][]): Map<string, string[]> {
  const groups = new Map<string, string[]>();
  for (const [group, resource] of entries) {
    const list = groups.get(group) ?? [];
    if (!list.includes(resource)) list.push(resource);
    groups.set(group, list);
  }
  return groups;
}

/** One rule per group: Kubernetes' own groups first (core, then by name), then the others by name; resources sorted. */
const rules = (groups: Map<string, string[]>, verbs: string[]): PolicyRule[] =>
  [...groups]
    .sort(([a], [b]) => Number(!isKubernetes(a)) - Number(!isKubernetes(b)) || a.localeCompare(b))
    .map(([group, resources]) => ({ apiGroups: [group], resources: [...resources].sort(), verbs }));

const isKubernetes = (group: string) => group === "" || group.endsWith(".k8s.io");

/** Reading every kind kedge reads, and the known policy kinds of other implementations. */
export function readRules(): PolicyRule[] {
  const read = Object.entries(READ_KINDS).flatMap(([kind, groups]) => groups.map((g): [string, string] => [g, pluralOf(kind)]));
  const others = Object.entries(KNOWN_OTHERS_POLICIES).flatMap(([g, plurals]) => plurals.map((p): [string, string] => [g, p]));
  return rules(byGroup([...read, ...others]), ["get", "list", "watch"]);
}

/** Writing the status of every kind whose status kedge writes, through the status subresource only. */
export function statusRules(): PolicyRule[] {
  const written = STATUS_KINDS.flatMap((kind) => (READ_KINDS[kind] ?? []).map((g): [string, string] => [g, `${pluralOf(kind)}/status`]));
  return rules(byGroup(written), ["patch"]);
}

/** The sync's ClusterRole: read rules, then status rules. */
export const clusterRoleRules = (): PolicyRule[] => [...readRules(), ...statusRules()];

/** Leader election's Role in the Lease's namespace: what client-go's LeaseLock does (get, create, update). */
export const LEASE_RULES: PolicyRule[] = [
  { apiGroups: ["coordination.k8s.io"], resources: ["leases"], verbs: ["get", "create", "update"] },
];
