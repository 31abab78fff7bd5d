/**
 * @module BackendTLSPolicy (gateway.networking.k8s.io/v1, GEP-1897): a Service's owner says its endpoints
 * speak TLS, under which name (SNI) and against which roots. A Worker's fetch sends the URL's host as SNI
 * and checks the certificate against the public roots for that host, so the edge meets a policy with
 * `wellKnownCACertificates: System` (the endpoints are called `https://<hostname>`, see
 * `CompiledEndpoint.serverName`). What it cannot do (a CA bundle of its own, other subject names) is not
 * dropped: the policy is not accepted, and every backendRef to the Service is invalid (its share 500), as
 * Gateway API asks when "a BackendTLSPolicy is present that refers to the Service, and the implementation
 * is unable to meet the requirement".
 */
import type { CompileReport } from "../status/compile-report";
import { apiGroup, type Manifest } from "../../gateway-api/manifest";
import { GATEWAY_GROUP } from "../input/api-groups";
import { accepted, fails, REASON, resolved } from "../status/conditions";
import type { Condition } from "../status/diagnostics";
import type { ResourceIndex } from "../input/resource-index";
import { byAge } from "../input/sameness";
import { type BackendTLSPolicySpec, specOf } from "../input/typed-objects";

/** What a policy asks of a Service's endpoints: TLS with this name, or why the edge cannot give it. */
export type BackendTls = { serverName: string } | { refused: string; policy: string };

/** The policy's validation as the edge can apply it, or the conditions that say why it cannot. */
function evaluate(validation: BackendTLSPolicySpec["validation"]): { serverName: string } | { conditions: Condition[]; message: string } {
  const { hostname } = validation;
  if ((validation.caCertificateRefs ?? []).length > 0) {
    const message =
      "caCertificateRefs: a Worker checks an upstream certificate against the public roots only and cannot be given a CA bundle; " +
      "use a certificate from a public CA and wellKnownCACertificates: System";
    return {
      conditions: [fails("Accepted", REASON.NoValidCACertificate, message), fails("ResolvedRefs", REASON.InvalidCACertificateRef, message)],
      message,
    };
  }
  // Neither set passes the schema too (that one of the two is set is a CEL rule).
  if (validation.wellKnownCACertificates !== "System") {
    const message = `wellKnownCACertificates ${String(validation.wellKnownCACertificates)} is not supported; the edge offers System`;
    return { conditions: [fails("Accepted", REASON.Invalid, message)], message };
  }
  const other = (validation.subjectAltNames ?? []).find((n) => n.type !== "Hostname" || n.hostname !== hostname);
  if (other) {
    const message = `subjectAltNames (${String(other.hostname ?? other.uri)}): a Worker checks the certificate for the name it connects to (${hostname}) only`;
    return { conditions: [fails("Accepted", REASON.Invalid, message)], message };
  }
  return { serverName: hostname };
}

export class BackendTlsPolicies {
  /** By `cluster/namespace/service` (every port) or `cluster/namespace/service/portName` (sectionName). */
  private readonly byTarget = new Map<string, BackendTls>();
  constructor(
    index: ResourceIndex,
    clusterOrder: Map<string, number>,
    private readonly report: CompileReport,
  ) {
    // The older policy wins a conflict (creationTimestamp, then cluster order).
    const policies = index
      .all("BackendTLSPolicy")
      .filter((p) => apiGroup(p.apiVersion) === GATEWAY_GROUP)
      .sort(byAge(clusterOrder));
    for (const policy of policies) this.add(index, policy);
  }

  private add(index: ResourceIndex, policy: Manifest): void {
    const { namespace, name } = policy.metadata;
    const label = `BackendTLSPolicy ${policy.cluster}/${namespace}/${name}`;
    const report = this.report;
    const spec = specOf(policy, "BackendTLSPolicy");
    const verdict = evaluate(spec.validation);
    const keys: string[] = [];
    for (const [i, ref] of spec.targetRefs.entries()) {
      const { group } = ref;
      if (ref.kind !== "Service" || (group !== "" && group !== "core")) {
        const message = `targetRefs[${i}]: ${group ? `${group}/` : ""}${ref.kind} is not a Service (an XBackend has its own spec.tls)`;
        report.refuse(policy, `spec.targetRefs[${i}]`, REASON.Invalid, message);
        return;
      }
      if (!index.get(policy.cluster, "Service", namespace, ref.name)) {
        report.refuse(policy, `spec.targetRefs[${i}].name`, REASON.TargetNotFound, `Service ${namespace}/${ref.name} not found`, {
          severity: "warning",
        });
        return;
      }
      const section = ref.sectionName === undefined ? "" : `/${ref.sectionName}`;
      keys.push(`${policy.cluster}/${namespace}/${ref.name}${section}`);
    }
    const taken = keys.find((k) => this.byTarget.has(k));
    if (taken) {
      const message = `Service ${taken.split("/").slice(1).join("/")} already has an older BackendTLSPolicy`;
      report.refuse(policy, "spec.targetRefs", REASON.Conflicted, message, { severity: "warning" });
      return;
    }
    const applied: BackendTls = "serverName" in verdict ? verdict : { refused: verdict.message, policy: label };
    for (const key of keys) this.byTarget.set(key, applied);
    if ("serverName" in verdict) {
      report.setConditions(policy, [
        accepted(`https to the endpoints, SNI and certificate name ${verdict.serverName}, public roots`),
        resolved(),
      ]);
    } else {
      report.refuse(policy, "spec.validation", verdict.conditions[0]!.reason, verdict.message, {
        conditions: verdict.conditions,
        said: `${verdict.message}; backendRefs to the Service answer 500`,
      });
    }
  }

  /** The policy that applies to one port of a Service in one cluster: one naming the port wins over one for the Service. */
  forPort(cluster: string, namespace: string, service: string, portName: string): BackendTls | undefined {
    const key = `${cluster}/${namespace}/${service}`;
    return (portName ? this.byTarget.get(`${key}/${portName}`) : undefined) ?? this.byTarget.get(key);
  }
}
