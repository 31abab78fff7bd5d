/**
 * @module XBackend (gateway.networking.x-k8s.io/v1alpha1, type ExternalHostname): a backend outside
 * every cluster. Validates what the upstream schema misses (IP literals, cluster-internal names,
 * localhost) and what a Worker can honour (protocol, TLS mode, client certificates), so each object
 * is either usable at the edge or rejected with a condition that says why. Never silent. Its own
 * `sessionPersistence` (Gateway API v1.7) is read here; which rules it applies to is backend-policies.ts's
 * and routes/rule-session.ts's business.
 */
import type { CompileReport } from "../status/compile-report";
import { accepted, REASON, unsupported } from "../status/conditions";
import { hostnameMatches, hostnameProblem, isIpLiteral, isLocalhost } from "../../gateway-api/hostname";
import type { Manifest } from "../../gateway-api/manifest";
import type { CompiledEndpoint } from "../../table/route-table";
import type { EgressSettings } from "../input/edge-config";
import { specOf, type XBackendProtocol, type XBackendSpec } from "../input/typed-objects";
import { type FieldProblem, isProblem } from "../status/problems";
import { parseSessionPersistence, type SessionSettings } from "./session-persistence";

/**
 * In the CRD enum, but not something fetch() can be made to speak. The others (HTTP, HTTP11, MCP) are HTTP/1.1
 * semantics, which fetch() speaks to an upstream (MCP is JSON-RPC over HTTP).
 */
const UNHONOURED_PROTOCOLS: Partial<Record<XBackendProtocol, string>> = {
  HTTP2: "a Worker's fetch() cannot require HTTP/2 towards an upstream (the platform negotiates it)",
  H2C: "a Worker's fetch() cannot speak cleartext HTTP/2 (h2c)",
  TCP: "HTTPRoute traffic is proxied with fetch(); raw TCP backends are not supported",
};

/** An accepted XBackend: where the edge sends requests. */
export interface ExternalTarget {
  hostname: string;
  port: number;
  scheme: "http" | "https";
  mtlsBinding?: string;
}

/** An accepted XBackend: where requests go, and the session persistence it declares for them (v1.7), if any. */
export type XBackendResult = { ok: true; target: ExternalTarget; session?: SessionSettings } | { ok: false; problem: FieldProblem };

/** The single endpoint of an accepted XBackend, as seen from `cluster` (whose weight it carries). */
export function externalEndpoint(cluster: { name: string; weight: number }, target: ExternalTarget): CompiledEndpoint {
  const { hostname, port, scheme, mtlsBinding } = target;
  return {
    id: `${cluster.name}/${hostname}:${port}`,
    cluster: cluster.name,
    scheme,
    host: hostname,
    port,
    weight: cluster.weight,
    ready: true,
    serving: true,
    terminating: false,
    external: true,
    ...(mtlsBinding ? { mtlsBinding } : {}),
  };
}

const key = (cluster: string, namespace: string, name: string) => `${cluster}/${namespace}/${name}`;

/** Names no edge should be pointed at by a namespace owner: cluster-internal DNS. */
const CLUSTER_INTERNAL = [".cluster.local", ".clusterset.local", ".svc"];

function checkHostname(raw: string | undefined, egress: EgressSettings): FieldProblem | string {
  const field = "spec.externalHostname.hostname";
  // kedge's schema lets externalHostname be left out, and an empty hostname by.
  if (raw === undefined || raw === "") return unsupported(field, "hostname is required");
  // A PreciseHostname is lower case (the API server's pattern refuses capitals, as for route hostnames).
  if (raw !== raw.toLowerCase()) return unsupported(field, `hostname ${raw} must be lower case (${raw.toLowerCase()})`);
  const host = raw;
  if (isIpLiteral(host) || CLUSTER_INTERNAL.some((suffix) => host === suffix.slice(1) || host.endsWith(suffix))) {
    const read =
      isIpLiteral(host) && !/^[\d.]+$|:/.test(host)
        ? ` (a URL parser reads it as the IP address ${new URL(`http://${host}/`).hostname})`
        : "";
    return unsupported(field, `hostname ${raw} must not be an IP address or end with .cluster.local${read}`);
  }
  const problem = hostnameProblem(host, false);
  if (problem) return unsupported(field, `hostname ${raw} ${problem}`);
  if (isLocalhost(host) && !egress.allowLocalhost) {
    return {
      field,
      reason: REASON.RefNotPermitted,
      message: `hostname ${raw} names the edge itself; set spec.egress.allowLocalhost in the edge settings for local development only`,
    };
  }
  if (egress.allowedHostnames && !isLocalhost(host) && !egress.allowedHostnames.some((p) => hostnameMatches(p, host))) {
    return {
      field,
      reason: REASON.RefNotPermitted,
      message: `hostname ${raw} is not in the edge settings' spec.egress.allowedHostnames (${egress.allowedHostnames.join(", ")})`,
    };
  }
  return host;
}

/** Whether a ReferenceGrant lets the XBackend use a Secret of another namespace (its own cluster's grants). */
export type SecretGrant = (xb: Manifest, secretNamespace: string, secretName: string) => boolean;

function checkTls(
  xb: Manifest,
  raw: XBackendSpec["tls"],
  hostname: string,
  egress: EgressSettings,
  granted: SecretGrant,
): FieldProblem | Pick<ExternalTarget, "scheme" | "mtlsBinding"> {
  if (raw === undefined) return { scheme: "http" };
  const at = "spec.tls";
  const { mode, clientCertificateRef: ref, validation } = raw;
  if ((ref !== undefined) !== (mode === "ClientAndServer")) {
    return unsupported(`${at}.clientCertificateRef`, "clientCertificateRef is set if and only if mode is ClientAndServer");
  }
  if (validation !== undefined) {
    // The API's rules for a validation: a hostname, and exactly one source of trust.
    if (validation.hostname === undefined || validation.hostname === "")
      return unsupported(`${at}.validation.hostname`, "validation needs a hostname (the name the certificate must carry)");
    if ((validation.caCertificateRefs !== undefined) === (validation.wellKnownCACertificates !== undefined))
      return unsupported(
        `${at}.validation`,
        "validation needs exactly one of caCertificateRefs and wellKnownCACertificates (use wellKnownCACertificates: System)",
      );
    if (validation.caCertificateRefs !== undefined) {
      return unsupported(
        `${at}.validation.caCertificateRefs`,
        "a Worker validates upstream certificates against the public CA set only; use wellKnownCACertificates: System",
      );
    }
    if (validation.wellKnownCACertificates !== undefined && validation.wellKnownCACertificates !== "System") {
      return unsupported(`${at}.validation.wellKnownCACertificates`, "only System is supported");
    }
    if (validation.hostname !== undefined && validation.hostname !== hostname) {
      return unsupported(
        `${at}.validation.hostname`,
        `a Worker sends SNI and validates the certificate for the URL's host; validation.hostname must equal ${hostname}`,
      );
    }
    if (validation.subjectAltNames !== undefined) {
      return unsupported(`${at}.validation.subjectAltNames`, "subjectAltNames cannot be honoured by a Worker");
    }
  }
  if (mode === "None") return { scheme: "http" };
  // ServerOnly; ClientAndServer has its clientCertificateRef (above).
  if (ref === undefined) return { scheme: "https" };
  if ((ref.kind ?? "Secret") !== "Secret" || (ref.group ?? "") !== "") {
    return {
      field: `${at}.clientCertificateRef`,
      reason: REASON.InvalidClientCertificateRef,
      message: "clientCertificateRef must name a core Secret",
    };
  }
  const namespace = ref.namespace ?? xb.metadata.namespace;
  // Presenting another namespace's client certificate takes its owner's consent, as any cross-namespace reference.
  if (namespace !== xb.metadata.namespace && !granted(xb, namespace, ref.name)) {
    return {
      field: `${at}.clientCertificateRef.namespace`,
      reason: REASON.RefNotPermitted,
      message: `no ReferenceGrant in namespace ${namespace} allows XBackends of ${xb.metadata.namespace} to use Secret ${ref.name}`,
    };
  }
  const binding = egress.clientCertificates[`${namespace}/${ref.name}`];
  if (!binding) {
    return {
      field: `${at}.clientCertificateRef`,
      reason: REASON.InvalidClientCertificateRef,
      message: `Secret ${namespace}/${ref.name} has no Workers mTLS certificate binding; map it in the edge settings under spec.egress.clientCertificates`,
    };
  }
  return { scheme: "https", mtlsBinding: binding };
}

/** Validates one XBackend object. */
export function compileXBackend(xb: Manifest, egress: EgressSettings, granted: SecretGrant = () => false): XBackendResult {
  const fail = (problem: FieldProblem): XBackendResult => ({ ok: false, problem });
  const spec = specOf(xb, "XBackend");
  // The PR's shape is `port: {port}`; its later revision names the field `number`. kedge's schema checks
  // the range of either, and asks for neither.
  const portField = spec.port?.number !== undefined ? "number" : "port";
  const port = spec.port?.[portField];
  if (port === undefined) return fail(unsupported(`spec.port.${portField}`, `port must be {${portField}: 1-65535}`));
  const protocol = spec.protocol ?? "HTTP";
  const why = UNHONOURED_PROTOCOLS[protocol];
  if (why !== undefined)
    return fail({ field: "spec.protocol", reason: REASON.UnsupportedProtocol, message: `protocol ${protocol}: ${why}` });
  const hostname = checkHostname(spec.externalHostname?.hostname, egress);
  if (typeof hostname !== "string") return fail(hostname);
  const tls = checkTls(xb, spec.tls, hostname, egress, granted);
  if ("reason" in tls) return fail(tls);
  const target: ExternalTarget = { hostname, port, ...tls };
  if (spec.sessionPersistence === undefined) return { ok: true, target };
  // An invalid one refuses the XBackend, as an invalid policy is refused: its owner asked for sessions.
  const session = parseSessionPersistence(spec.sessionPersistence, "spec.sessionPersistence");
  if (isProblem(session)) return fail(session);
  return { ok: true, target, session };
}

/** Every XBackend of every cluster, validated once; the route and CompositeBackend stages look them up. */
export class XBackends {
  private readonly results = new Map<string, XBackendResult>();
  /** Every XBackend read, accepted or not (each has a status, and the accepted ones ancestors). */
  readonly manifests: Manifest[];

  constructor(manifests: Manifest[], egress: EgressSettings, granted: SecretGrant, report: CompileReport) {
    this.manifests = manifests;
    for (const xb of manifests) {
      const result = compileXBackend(xb, egress, granted);
      this.results.set(key(xb.cluster, xb.metadata.namespace, xb.metadata.name), result);
      if (result.ok) {
        const { scheme, hostname, port, mtlsBinding } = result.target;
        const how = mtlsBinding ? ` with client certificate binding ${mtlsBinding}` : "";
        if (scheme === "http" && !isLocalhost(hostname))
          report.warn(xb, "spec.tls", REASON.PlainHTTP, "external backends should use TLS (tls.mode ServerOnly)");
        report.setConditions(xb, [accepted(`${scheme}://${hostname}:${port}${how}`)]);
      } else {
        const { field, reason, message } = result.problem;
        report.refuse(xb, field, reason, message);
      }
    }
  }

  get(cluster: string, namespace: string, name: string): XBackendResult | undefined {
    return this.results.get(key(cluster, namespace, name));
  }
}
