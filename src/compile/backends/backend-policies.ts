/**
 * @module What a backend's owner says of it (GEP-1282), by backend: its session persistence and its retry
 * budget. Read from an XBackend's own `sessionPersistence` (Gateway API v1.7's attachment point, read
 * first), and from policies attached directly to a Service, ServiceImport, CompositeBackend or XBackend of
 * their namespace: BackendLBPolicy (gateway.networking.k8s.io/v1alpha2) and XBackendTrafficPolicy
 * (gateway.networking.x-k8s.io). v1.7 deprecates a policy's session persistence: kedge still applies it,
 * and says so in an info. A policy on a multi-cluster aggregate applies to the whole aggregate, whichever
 * cluster declares it. Which of these a route rule gets is routes/rule-session.ts's business.
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
import type { XBackends } from "./xbackends";
import { parseSessionPersistence, sameSettings, type SessionSettings } from "./session-persistence";

export const POLICY_KINDS: Record<string, string[]> = {
  BackendLBPolicy: [GATEWAY_GROUP],
  XBackendTrafficPolicy: [X_GROUP],
};

/** Session persistence a backend carries. */
export interface BackendSession {
  /** Who declared it, for messages: `Kind cluster/namespace/name` of the XBackend or of the policy. */
  from: string;
  /** Declared on the backend itself (an XBackend's `spec.sessionPersistence`, v1.7), not by a policy. */
  own: boolean;
  settings: SessionSettings;
}

/** Why session persistence cannot be taken, and whether what stands in the way is an XBackend's own. */
interface Clash {
  text: string;
  own: boolean;
}

/** Who uses a session name: the backend it serves, and whether that backend declared it itself. */
interface NameOwner {
  key: string;
  own: boolean;
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

/** The labels messages name an object by: `Kind cluster/namespace/name`. */
const labelOf = (m: Manifest): string => `${m.kind} ${m.cluster}/${m.metadata.namespace}/${m.metadata.name}`;

/**
 * Why a policy's session persistence is deprecated, and where it goes instead: for an XBackend, the
 * XBackend itself. v1.7 reaches a Service through a Backend of type EndpointSelector, which kedge does not
 * read, so for a Service (a ServiceImport, a CompositeBackend) the policy stays the way to say it.
 */
function policyDeprecation(policy: Manifest, targets: string[]): string {
  const what =
    policy.kind === "BackendLBPolicy"
      ? "BackendLBPolicy left the Gateway API in v1.3, and v1.7 deprecates session persistence on a policy"
      : "Gateway API v1.7 deprecates session persistence on an XBackendTrafficPolicy";
  const onXBackend = targets.some((t) => t.startsWith("XBackend/"));
  const onOther = targets.some((t) => !t.startsWith("XBackend/"));
  const instead = [
    ...(onXBackend ? ["for an XBackend, move it to the XBackend's own spec.sessionPersistence"] : []),
    ...(onOther ? ["for a Service, ServiceImport or CompositeBackend kedge has no other place for it yet: keep the policy"] : []),
  ].join("; ");
  return `${what} (GEP-1619: it belongs to the backend); kedge still applies it; ${instead}`;
}

export class BackendPolicies {
  private readonly byTarget = new Map<string, BackendSession>();
  /** forBackend's answers by source, once the policies are read (byTarget changes no more). */
  private readonly sessionsOf = new Map<SourceRef, BackendSession[]>();
  /** Retry budgets by target key; the older policy's wins. */
  private readonly budgets = new Map<string, CompiledRetryBudget>();
  /** The backend keys each policy is about (accepted or conflicted), for its ancestors. */
  readonly targetsOf = new Map<Manifest, string[]>();
  /** Session cookie and header names (`Cookie:<name>`) by the backend they serve: one name, one backend. */
  private readonly sessionNames = new Map<string, NameOwner>();

  constructor(index: ResourceIndex, xbackends: XBackends, composites: CompositeBackends, report: CompileReport) {
    this.readOwnSessions(xbackends, report);
    const policies = Object.entries(POLICY_KINDS)
      .flatMap(([kind, groups]) => index.all(kind).filter((p) => groups.includes(apiGroup(p.apiVersion))))
      .sort(byAge);
    for (const policy of policies) {
      const label = labelOf(policy);
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
        const winner = problem.own
          ? "an XBackend's own sessionPersistence comes before a policy's (Gateway API v1.7)"
          : "the older policy wins";
        reject("spec.targetRefs", REASON.Conflicted, `${problem.text}; ${winner}`, targets);
        continue;
      }
      for (const key of targets) {
        if (settings && !this.byTarget.has(key)) this.byTarget.set(key, { from: label, own: false, settings });
        if (settings?.name) this.claimName(settings, key, false);
        if (budget && !this.budgets.has(key)) this.budgets.set(key, budget);
      }
      verdict([accepted()], targets);
      if (settings) report.info(policy, "spec.sessionPersistence", REASON.Deprecated, policyDeprecation(policy, targets));
    }
  }

  /**
   * Every accepted XBackend's own session persistence, before any policy (v1.7's attachment point comes
   * first), older first. An XBackend whose name another XBackend already uses keeps no session persistence
   * (GEP-1619: one name, one backend): a warning says so, and the XBackend is served without it.
   */
  private readOwnSessions(xbackends: XBackends, report: CompileReport): void {
    for (const xb of [...xbackends.manifests].sort(byAge)) {
      const { namespace, name } = xb.metadata;
      const result = xbackends.get(xb.cluster, namespace, name);
      if (!result?.ok || !result.session) continue;
      const key = targetKey("XBackend", xb.cluster, namespace, name);
      const taken = this.nameConflict([key], result.session);
      if (taken) {
        const message = `${taken.text}; this XBackend keeps no session persistence (name it differently)`;
        report.warn(xb, "spec.sessionPersistence", REASON.Conflicted, message);
        continue;
      }
      this.byTarget.set(key, { from: labelOf(xb), own: true, settings: result.session });
      if (result.session.name) this.claimName(result.session, key, true);
    }
  }

  /** Another, different persistence on one of `targets` (an XBackend's own, or an older policy's), if any. */
  private persistenceConflict(targets: string[], settings: SessionSettings): Clash | undefined {
    for (const key of targets) {
      const other = this.byTarget.get(key);
      if (!other || sameSettings(other.settings, settings)) continue;
      return other.own
        ? { text: `${key} declares its own sessionPersistence`, own: true }
        : { text: `${key} already has session persistence from ${other.from}`, own: false };
    }
    return undefined;
  }

  /** `settings`' name already serving another backend than `backends`, if it does. */
  private nameConflict(backends: string[], settings: SessionSettings): Clash | undefined {
    const owner = settings.name ? this.sessionNames.get(`${settings.type}:${settings.name}`) : undefined;
    // One name may serve one backend: the same Service in several clusters is one backend (sameness).
    if (owner === undefined || backends.some((t) => sameBackend(t, owner.key))) return undefined;
    return { text: `${settings.type.toLowerCase()} name ${settings.name} is already used for ${owner.key}`, own: owner.own };
  }

  private claimName(settings: SessionSettings, key: string, own: boolean): void {
    this.sessionNames.set(`${settings.type}:${settings.name}`, { key, own });
  }

  /**
   * A route rule's own session name for its backends: taken when no other backend has it, else why not
   * (two backends with one cookie name is invalid in GEP-1619; the first to claim it keeps it).
   */
  claimSessionName(settings: SessionSettings, sources: SourceRef[]): string | undefined {
    const keys = sources.flatMap(keysOf);
    if (!settings.name || keys.length === 0) return undefined;
    const problem = this.nameConflict(keys, settings);
    if (problem) return problem.text;
    if (!this.sessionNames.has(`${settings.type}:${settings.name}`)) this.claimName(settings, keys[0]!, false);
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
   * The session persistence a compiled backend carries (its own, or a policy's): one, or for a Service or
   * XBackend of a route applied to several clusters, each cluster's (a rule whose backends disagree is
   * reported by the caller).
   */
  forBackend(source: SourceRef): BackendSession[] {
    // Asked by every rule naming the backend (whose source is one object): its keys are built once.
    let sessions = this.sessionsOf.get(source);
    if (!sessions) {
      sessions = keysOf(source).flatMap((key) => this.byTarget.get(key) ?? []);
      this.sessionsOf.set(source, sessions);
    }
    return sessions;
  }

  /** The retry budget a policy sets for a compiled backend (for one in several clusters, the first cluster's). */
  retryBudgetFor(source: SourceRef): CompiledRetryBudget | undefined {
    return keysOf(source)
      .map((key) => this.budgets.get(key))
      .find(Boolean);
  }
}
