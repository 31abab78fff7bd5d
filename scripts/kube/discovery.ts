/**
 * @module What an API server serves of the kinds kedge reads, as kubectl finds out (discovery): each
 * group's preferred version, and in it the resource (plural name, namespaced or not) of each kind. Also
 * the policy kinds of other implementations (Envoy Gateway's SecurityPolicy, Istio's AuthorizationPolicy
 * ...): a policy of theirs that targets what kedge serves is refused as not enforced, as it is when read
 * from a folder, so a live cluster's must be read too.
 */
import { GATEWAY_GROUP, X_GROUP } from "../../src/compile/input/api-groups";
import { READ_KINDS } from "../../src/compile/input/kinds";
import type { ApiAnswer } from "./api-client";
import { jsonOf } from "../lib/json";
import { API_GROUP_LIST, API_RESOURCE_LIST } from "./api-answers";

/** One resource of the API: where its collection is, and which kind it holds. */
export interface Listing {
  kind: string;
  group: string;
  version: string;
  plural: string;
  namespaced: boolean;
  /** The collection across namespaces, e.g. `/apis/gateway.networking.k8s.io/v1/httproutes`. */
  path: string;
  /**
   * A policy kind of another implementation, read only for the policies attached to what kedge serves: not
   * being allowed to read it is a warning (its policies go unchecked), not a refusal of the whole read.
   */
  othersPolicy?: true;
}

/**
 * Whether `group` may hold another implementation's policy kinds. They live in CRDs: Kubernetes' own
 * groups (no dot, or `*.k8s.io`, such as networking.k8s.io with its NetworkPolicy) hold none, the Gateway
 * API's groups excepted.
 */
const mayHoldOthersPolicies = (group: string): boolean =>
  group === GATEWAY_GROUP || group === X_GROUP || (group.includes(".") && !group.endsWith(".k8s.io"));

/**
 * Other implementations' policy kinds that kedge's RBAC (config/rbac/kedge-sync.yaml, `kedge manifests`)
 * grants reading, by API group: discovery finds any `...Policy` kind of a CRD group, but a ClusterRole can
 * only name the ones known. A kind missing here is a warning naming the rule to add (read-cluster.ts).
 */
export const KNOWN_OTHERS_POLICIES: Readonly<Record<string, readonly string[]>> = {
  "gateway.envoyproxy.io": ["securitypolicies", "backendtrafficpolicies", "clienttrafficpolicies", "envoyextensionpolicies"],
  "gateway.nginx.org": ["clientsettingspolicies", "observabilitypolicies", "upstreamsettingspolicies", "snippetspolicies"],
  "gateway.kgateway.dev": ["trafficpolicies", "backendconfigpolicies", "httplistenerpolicies"],
  "security.istio.io": ["authorizationpolicies"],
};

/** Gateway API names policy kinds "...Policy" (GEP-713). */
const mayBeOthersPolicy = (group: string, kind: string): boolean =>
  kind.endsWith("Policy") && READ_KINDS[kind]?.includes(group) !== true && mayHoldOthersPolicies(group);

/** The path of one object of a listing, and of a subresource of it (`status`). */
export function objectPath(listing: Listing, namespace: string, name: string, subresource?: string): string {
  const base = listing.group === "" ? `/api/${listing.version}` : `/apis/${listing.group}/${listing.version}`;
  const scope = listing.namespaced ? `/namespaces/${encodeURIComponent(namespace)}` : "";
  return `${base}${scope}/${listing.plural}/${encodeURIComponent(name)}${subresource ? `/${subresource}` : ""}`;
}

/**
 * The listings of the kinds kedge reads, and of other implementations' policy kinds; `ask` answers a GET
 * (and throws when the server cannot be reached).
 */
export async function discoverListings(ask: (path: string) => Promise<ApiAnswer>): Promise<Listing[]> {
  const wanted = new Map<string, Set<string>>();
  for (const [kind, groups] of Object.entries(READ_KINDS)) for (const g of groups) wanted.set(g, (wanted.get(g) ?? new Set()).add(kind));
  const result: Listing[] = [];
  const resourcesAt = async (group: string, version: string) => {
    const base = group === "" ? `/api/${version}` : `/apis/${group}/${version}`;
    const answer = await ask(base);
    if (answer.status === 404) return;
    const list = jsonOf(answer.body, API_RESOURCE_LIST, `${base}: the resources served`);
    for (const r of list.resources ?? []) {
      if (r.name.includes("/")) continue;
      const read = wanted.get(group)?.has(r.kind) === true;
      if (!read && !mayBeOthersPolicy(group, r.kind)) continue;
      const listing: Listing = {
        kind: r.kind,
        group,
        version,
        plural: r.name,
        namespaced: r.namespaced ?? true,
        path: `${base}/${r.name}`,
      };
      result.push(read ? listing : { ...listing, othersPolicy: true });
    }
  };
  await resourcesAt("", "v1");
  const groups = jsonOf((await ask("/apis")).body, API_GROUP_LIST, "/apis: the groups served");
  for (const group of groups.groups ?? [])
    if (group.preferredVersion && (wanted.has(group.name) || mayHoldOthersPolicies(group.name)))
      await resourcesAt(group.name, group.preferredVersion.version);
  return result;
}
