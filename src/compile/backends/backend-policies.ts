/**
 * @module BackendLBPolicy (gateway.networking.k8s.io/v1alpha2) and XBackendTrafficPolicy
 * (gateway.networking.x-k8s.io): what belongs to a backend's owner (GEP-1282), attached directly to a
 * Service, ServiceImport, CompositeBackend or XBackend of its namespace: session persistence, and (on an
 * XBackendTrafficPolicy) the retry budget. Either may be absent. A policy on a multi-cluster aggregate
 * applies to the whole aggregate, whichever cluster declares it.
 */
import type { CompileReport } from "../status/compile-report";
import { accepted, type Reason, REASON } from "../status/conditions";
import { apiGroup, type Manifest } from "../../gateway-api/manifest";
import type { CompiledRetryBudget, SourceRef } from "../../table/route-table";
import { GATEWAY_GROUP, MCS_GROUP, X_GROUP } from "../input/api-groups";
import type { CompositeBackends } from "./composite-backends";
import type { Condition } from "../status/diagnostics";
import type { ResourceIndex } from "../input/resource-index";
import { type BackendLBPolicySpec, type SessionPersistence, specOf } from "../input/typed-objects";
import { parseRetryConstraint } from "./retry-budget";
import { parseSessionPersistence, sameSettings, type SessionSettings } from "./session-persistence";

export const POLICY_KINDS: Record<string, string[]> = {
  BackendLBPolicy: [GATEWAY_GROUP],
  XBackendTrafficPolicy: [X_GROUP],
};

/** A policy that applies to a backend. */
export interface AppliedPolicy {
  /** `Kind cluster/namespace/name` of the policy, for messages. */
  policy: string;
  settings: SessionSettings;
}

/** Which backend a target names; aggregates are the same backend in every cluster. */
function targetKey(kind: string, cluster: string, namespace: string, name: string): string {
  return kind === "ServiceImport" || kind === "CompositeBackend"
    ? `${kind}/${namespace}/${name}`
    : `${kind}/${cluster}/${namespace}/${name}`;
}

/** Whether two target keys name one backend under namespace sameness: equal but for the cluster. */
const sameBackend = (a: string, b: string): boolean => {
  const withoutCluster = (key: string) => (/^(Service|XBackend)\//.test(key) ? key.replace(/^(\w+)\/[^/]*\//, "$1//") : key);
  return withoutCluster(a) === withoutCluster(b);
};

/** The key of a compiled backend's source (what a policy's target must equal). */
export const backendKey = (source: SourceRef): string => targetKey(source.kind, source.cluster, source.namespace, source.name);

/** The target keys of a compiled backend: one per cluster for a cluster-local kind drawn from several clusters. */
const keysOf = (source: SourceRef): string[] =>
  source.kind === "Service" || source.kind === "XBackend"
    ? source.cluster.split(",").map((cluster) => backendKey({ ...source, cluster }))
    : [backendKey(source)];

const TARGET_KINDS: Record<string, string[]> = {
  Service: ["", "core"],
  ServiceImport: [MCS_GROUP],
  CompositeBackend: [GATEWAY_GROUP, X_GROUP],
  XBackend: [X_GROUP],
};

/** What both policy kinds have: targets (kind optional on a BackendLBPolicy) and session persistence. */
interface PolicySpec {
  targetRefs: BackendLBPolicySpec["targetRefs"];
  sessionPersistence?: SessionPersistence;
}

const policySpec = (policy: Manifest): PolicySpec =>
  policy.kind === "XBackendTrafficPolicy" ? specOf(policy, "XBackendTrafficPolicy") : specOf(policy, "BackendLBPolicy");

/** Older first, then cluster and input order: the spec's rule for which of two conflicting policies wins. */
function byAge(a: Manifest, b: Manifest): number {
  const ta = a.metadata.creationTimestamp ?? "\uffff";
  const tb = b.metadata.creationTimestamp ?? "\uffff";
  return ta < tb ? -1 : ta > tb ? 1 : 0;
}

export class BackendPolicies {
  private readonly byTarget = new Map<string, AppliedPolicy>();
  /** Retry budgets by target key; the older policy's wins. */
  private readonly budgets = new Map<string, CompiledRetryBudget>();
  /** The backend keys each policy is about (accepted or conflicted), for its ancestors. */
  readonly targetsOf = new Map<Manifest, string[]>();
  /** Session cookie and header names (`Cookie:<name>`) by the backend key they serve: one name, one backend. */
  private readonly sessionNames = new Map<string, string>();

  constructor(index: ResourceIndex, composites: CompositeBackends, report: CompileReport) {
    const policies = Object.entries(POLICY_KINDS)
      .flatMap(([kind, groups]) => index.all(kind).filter((p) => groups.includes(apiGroup(p.apiVersion))))
      .sort(byAge);
    for (const policy of policies) {
      const label = `${policy.kind} ${policy.cluster}/${policy.metadata.namespace}/${policy.metadata.name}`;
      const verdict = (conditions: Condition[], targets: string[] = []) => {
        report.setConditions(policy, conditions);
        this.targetsOf.set(policy, targets);
      };
      const reject = (field: string, reason: Reason, message: string, targets: string[] = []) => {
        report.refuse(policy, field, reason, message);
        this.targetsOf.set(policy, targets);
      };
      const spec = policySpec(policy);
      const settings =
        spec.sessionPersistence === undefined ? undefined : parseSessionPersistence(spec.sessionPersistence, "spec.sessionPersistence");
      if (settings && "reason" in settings) {
        reject(settings.field, REASON.Invalid, settings.message);
        continue;
      }
      // Only an XBackendTrafficPolicy has a retryConstraint (on a BackendLBPolicy the schema refuses the field).
      const constraint = policy.kind === "XBackendTrafficPolicy" ? specOf(policy, "XBackendTrafficPolicy").retryConstraint : undefined;
      const budget = constraint === undefined ? undefined : parseRetryConstraint(constraint, "spec.retryConstraint");
      if (budget && "reason" in budget) {
        reject(budget.field, REASON.Invalid, budget.message);
        continue;
      }
      const targets = this.targets(policy, spec.targetRefs, index, composites);
      if (typeof targets === "string") {
        reject(
          "spec.targetRefs",
          targets.startsWith(REASON.TargetNotFound) ? REASON.TargetNotFound : REASON.Invalid,
          targets.replace(/^\w+: /, ""),
        );
        continue;
      }
      const problem = settings ? (this.persistenceConflict(targets, settings) ?? this.nameConflict(targets, settings)) : undefined;
      if (problem) {
        reject("spec.targetRefs", REASON.Conflicted, `${problem}; the older policy wins`, targets);
        continue;
      }
      for (const key of targets) {
        if (settings && !this.byTarget.has(key)) this.byTarget.set(key, { policy: label, settings });
        if (settings?.name) this.sessionNames.set(`${settings.type}:${settings.name}`, key);
        if (budget && !this.budgets.has(key)) this.budgets.set(key, budget);
      }
      verdict([accepted()], targets);
    }
  }

  /** Another policy's different persistence on one of `targets`, if any. */
  private persistenceConflict(targets: string[], settings: SessionSettings): string | undefined {
    return targets
      .map((key) => {
        const other = this.byTarget.get(key);
        return other && !sameSettings(other.settings, settings) ? `${key} already has session persistence from ${other.policy}` : undefined;
      })
      .find(Boolean);
  }

  /** `settings`' name already serving another backend than `backends`, if it does. */
  private nameConflict(backends: string[], settings: SessionSettings): string | undefined {
    const nameOwner = settings.name ? this.sessionNames.get(`${settings.type}:${settings.name}`) : undefined;
    // One name may serve one backend: the same Service in several clusters is one backend (sameness).
    if (nameOwner !== undefined && !backends.some((t) => sameBackend(t, nameOwner)))
      return `${settings.type.toLowerCase()} name ${settings.name} is already used for ${nameOwner}`;
    return undefined;
  }

  /**
   * A route rule's own session name for its backends: taken when no other backend has it, else why not
   * (two backends with one cookie name is invalid in GEP-1619; the first to claim it keeps it).
   */
  claimSessionName(settings: SessionSettings, sources: SourceRef[]): string | undefined {
    const keys = sources.flatMap(keysOf);
    if (!settings.name || keys.length === 0) return undefined;
    const problem = this.nameConflict(keys, settings);
    if (problem) return problem;
    const name = `${settings.type}:${settings.name}`;
    if (!this.sessionNames.has(name)) this.sessionNames.set(name, keys[0]!);
    return undefined;
  }

  /** The keys of the policy's targets, or the first problem as `Reason: message`. */
  private targets(
    policy: Manifest,
    targetRefs: PolicySpec["targetRefs"],
    index: ResourceIndex,
    composites: CompositeBackends,
  ): string[] | string {
    const { namespace } = policy.metadata;
    const keys: string[] = [];
    for (const [i, ref] of targetRefs.entries()) {
      // kedge's schema for BackendLBPolicy asks for a name only.
      if (ref.kind === undefined) return `Invalid: targetRefs[${i}] needs kind and name`;
      const group = ref.group ?? "";
      if (!TARGET_KINDS[ref.kind]?.includes(group)) {
        return `Invalid: targetRefs[${i}] kind ${group ? `${group}/` : ""}${ref.kind} is not a backend (Service, ServiceImport, CompositeBackend, XBackend)`;
      }
      if (ref.namespace !== undefined && ref.namespace !== namespace) return `Invalid: targetRefs[${i}] must be in the policy's namespace`;
      const exists =
        ref.kind === "CompositeBackend"
          ? composites.isDeclared(namespace, ref.name)
          : ref.kind === "ServiceImport"
            ? index.all("ServiceExport").some((e) => e.metadata.namespace === namespace && e.metadata.name === ref.name)
            : index.get(policy.cluster, ref.kind, namespace, ref.name) !== undefined;
      if (!exists) return `TargetNotFound: ${ref.kind} ${namespace}/${ref.name} not found`;
      keys.push(targetKey(ref.kind, policy.cluster, namespace, ref.name));
    }
    return keys;
  }

  /**
   * The policies that apply to a compiled backend: one, or for a Service of a route applied to several
   * clusters, each cluster's (a rule whose backends disagree is reported by the caller).
   */
  forBackend(source: SourceRef): AppliedPolicy[] {
    return keysOf(source).flatMap((key) => this.byTarget.get(key) ?? []);
  }

  /** The retry budget a policy sets for a compiled backend (for one in several clusters, the first cluster's). */
  retryBudgetFor(source: SourceRef): CompiledRetryBudget | undefined {
    return keysOf(source)
      .map((key) => this.budgets.get(key))
      .find(Boolean);
  }
}
