/**
 * @module CompositeBackend: CompositeBackends with the same namespace/name in several clusters are one
 * backend (namespace sameness) whose targets are the union of every cluster's targetRefs. Each object
 * is validated on its own; a rejected one contributes nothing, so its cluster drops out of the union.
 */
import type { CompileReport } from "../status/compile-report";
import { apiGroup, type Manifest } from "../../gateway-api/manifest";
import { GATEWAY_GROUP, X_GROUP } from "../input/api-groups";
import { accepted, fails, REASON, resolved, unsupported } from "../status/conditions";
import type { Condition } from "../status/diagnostics";
import type { ResourceIndex } from "../input/resource-index";
import { specOf } from "../input/typed-objects";
import type { XBackends } from "./xbackends";
import { type FieldProblem } from "../status/problems";

export const COMPOSITE_GROUPS = new Set([GATEWAY_GROUP, X_GROUP]);
/** The core group, as targetRefs spell it: omitted, "", or (as in the proposal's example) "v1"/"core". */
const CORE_GROUPS = new Set(["", "core", "v1"]);

export type CompositeTarget = { kind: "Service"; name: string } | { kind: "XBackend"; name: string };

/** One cluster's accepted CompositeBackend and the targets it could resolve there. */
export interface CompositeMember {
  cluster: string;
  manifest: Manifest;
  targets: CompositeTarget[];
}

const key = (namespace: string, name: string) => `${namespace}/${name}`;

function parseTargets(cb: Manifest): CompositeTarget[] | FieldProblem {
  const targets: CompositeTarget[] = [];
  for (const [i, ref] of specOf(cb, "CompositeBackend").targetRefs.entries()) {
    const at = `spec.targetRefs[${i}]`;
    // kedge's schema asks for a name, and lets an empty one by.
    if (ref.name === "") return unsupported(at, "a targetRef needs a kind and a name");
    if (ref.namespace !== undefined && ref.namespace !== cb.metadata.namespace) {
      return unsupported(`${at}.namespace`, "targets must be in the CompositeBackend's namespace");
    }
    const group = ref.group ?? "";
    if (ref.kind === "CompositeBackend") {
      return {
        field: `${at}.kind`,
        reason: REASON.InvalidKind,
        message: `a CompositeBackend may not target another CompositeBackend (${ref.name})`,
      };
    }
    if (ref.kind === "Service" && CORE_GROUPS.has(group)) targets.push({ kind: "Service", name: ref.name });
    else if (ref.kind === "XBackend" && (group === X_GROUP || group === "")) targets.push({ kind: "XBackend", name: ref.name });
    else {
      return {
        field: `${at}.kind`,
        reason: REASON.InvalidKind,
        message: `target kind ${group ? `${group}/` : ""}${ref.kind} is not supported; use Service or ${X_GROUP}/XBackend`,
      };
    }
  }
  return targets;
}

/** Every CompositeBackend of every cluster, validated and grouped by namespace/name. */
export class CompositeBackends {
  private readonly members = new Map<string, CompositeMember[]>();
  private readonly known = new Set<string>();
  constructor(index: ResourceIndex, xbackends: XBackends, report: CompileReport) {
    const pending: { cb: Manifest; conditions: Condition[] }[] = [];
    for (const cb of index.all("CompositeBackend")) {
      if (!COMPOSITE_GROUPS.has(apiGroup(cb.apiVersion))) {
        report.tell("info", cb, "apiVersion", REASON.Ignored, `CompositeBackend is read from ${[...COMPOSITE_GROUPS].join(" or ")}`);
        continue;
      }
      const { namespace, name } = cb.metadata;
      this.known.add(key(namespace, name));
      const parsed = parseTargets(cb);
      if (!Array.isArray(parsed)) {
        report.error(cb, parsed.field, parsed.reason, `${parsed.message}; this cluster contributes nothing to ${namespace}/${name}`);
        pending.push({ cb, conditions: [fails("Accepted", parsed.reason, parsed.message)] });
        continue;
      }
      const missing: string[] = [];
      const targets = parsed.filter((t) => {
        if (t.kind === "Service") {
          if (index.get(cb.cluster, "Service", namespace, t.name)) return true;
          missing.push(`Service ${namespace}/${t.name} not found in cluster ${cb.cluster}`);
          return false;
        }
        const xb = xbackends.get(cb.cluster, namespace, t.name);
        if (xb?.ok) return true;
        missing.push(
          xb
            ? `XBackend ${namespace}/${t.name} is not accepted (${xb.problem.reason})`
            : `XBackend ${namespace}/${t.name} not found in cluster ${cb.cluster}`,
        );
        return false;
      });
      for (const m of missing) report.error(cb, "spec.targetRefs", REASON.BackendNotFound, m);
      if (targets.length > 0) {
        const list = this.members.get(key(namespace, name)) ?? [];
        list.push({ cluster: cb.cluster, manifest: cb, targets });
        this.members.set(key(namespace, name), list);
      }
      pending.push({
        cb,
        conditions: [accepted(), missing.length === 0 ? resolved() : fails("ResolvedRefs", REASON.BackendNotFound, missing.join("; "))],
      });
    }
    // Every object of one aggregate reports the same list: which clusters contribute to the union.
    for (const { cb, conditions } of pending) {
      const clusters = this.contributors(cb.metadata.namespace, cb.metadata.name);
      report.setConditions(cb, conditions);
      report.setAggregate(cb, { clusters });
    }
  }

  /** Accepted members with at least one resolvable target, in cluster order. */
  membersOf(namespace: string, name: string): CompositeMember[] {
    return this.members.get(key(namespace, name)) ?? [];
  }

  /** True when some cluster declares the CompositeBackend at all (accepted or not). */
  isDeclared(namespace: string, name: string): boolean {
    return this.known.has(key(namespace, name));
  }

  contributors(namespace: string, name: string): string[] {
    return this.membersOf(namespace, name).map((m) => m.cluster);
  }
}
