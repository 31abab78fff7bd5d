/**
 * @module The compiler: resources of every cluster → one RouteTable plus diagnostics and statuses.
 * Pure: no I/O. Stages: index ▸ gateways ▸ routes (attach, validate, resolve backends) ▸ host index ▸ hash.
 */
import type { Manifest } from "../gateway-api/manifest";
import { canonicalJson, canonicalJsonWithLastKey, sha256Hex } from "../table/canonical-json";
import {
  type CompiledBackend,
  type CompiledMatch,
  type CompiledRule,
  type LocalityPolicy,
  type Protocol,
  type RouteTable,
  SCHEMA_VERSION,
  takesNewTraffic,
} from "../table/route-table";
import { BackendAncestors, backendsOfRule } from "./backend-ancestors";
import { CompositeBackends } from "./composite-backends";
import { type Diagnostic, Diagnostics, objectRef, type ResourceStatus } from "./diagnostics";
import { supportedFeatures } from "./features";
import type { EdgeConfig } from "./edge-config";
import { compileGateways, gatewayStatuses, isServed } from "./gateways";
import { buildHostIndex, type IndexedAttachment } from "./host-index";
import { compileHTTPRoutes, type RouteDraft } from "./http-routes";
import { X_GROUP } from "./api-groups";
import { readableObjects } from "./kinds";
import { reportForeignPolicies, servedObjects } from "./foreign-policies";
import { reportUnservedRoutes } from "./unserved-routes";
import { compileListenerSets, listenerSetStatuses } from "./listener-sets";
import { isReferencePermitted } from "./reference-grant";
import { ResourceIndex } from "./resource-index";
import { validateObjects } from "./schema/validate-objects";
import { backendKey, BackendPolicies } from "./backend-policies";
import { BackendTlsPolicies } from "./backend-tls";
import { XBackends } from "./xbackends";

export interface CompileResult {
  table: RouteTable;
  /** The table's canonical JSON: what is stored, and what its version hashes (without the version). */
  text: string;
  diagnostics: Diagnostic[];
  statuses: ResourceStatus[];
}

const where = (m: Manifest) => `${m.file}:${m.line}`;

/**
 * What a backend gets beside its endpoints: the edge settings' health check (the defaults, with its
 * `namespace/name` override on top), and its policy's retry budget.
 */
function withPolicies(backend: CompiledBackend, edge: EdgeConfig, policies: BackendPolicies): CompiledBackend {
  const retryBudget = policies.retryBudgetFor(backend.source);
  const override = edge.healthChecks?.overrides[`${backend.source.namespace}/${backend.source.name}`] ?? {};
  return {
    ...backend,
    ...(edge.healthChecks ? { healthCheck: { ...edge.healthChecks.defaults, ...override } } : {}),
    ...(retryBudget ? { retryBudget } : {}),
  };
}

function localityPolicy(edge: EdgeConfig): LocalityPolicy {
  const clusters: LocalityPolicy["clusters"] = {};
  for (const c of edge.clusters) if (c.locality) clusters[c.name] = c.locality;
  return { minHealthyEndpoints: edge.locality?.minHealthyEndpoints ?? 1, clusters };
}

function emitRoute(draft: RouteDraft, clusterOrder: number, rules: CompiledRule[], matches: CompiledMatch[]): IndexedAttachment[] {
  const { manifest: route } = draft;
  const clusters = draft.clusters.join(",");
  const base = `${clusters}/${route.metadata.namespace}/${route.metadata.name}`;
  const ports = [...new Set(draft.attachments.map((a) => a.listener.port))].sort((a, b) => a - b);
  const result: IndexedAttachment[] = [];
  for (const port of ports) {
    // A route attached to listeners on several ports gets one copy per port: redirects default to that port.
    const suffix = ports.length > 1 ? `@${port}` : "";
    const ranked: IndexedAttachment["matches"] = [];
    // A rule copy serves every listener of its port: one that validates client certificates makes it require one.
    const certificate = draft.attachments.some((a) => a.listener.port === port && a.listener.clientCertificate === "required");
    for (const rule of draft.rules) {
      const ruleIndex = rules.length;
      const id = `${base}/rule/${rule.index}${suffix}`;
      rules.push({
        id,
        source: { cluster: clusters, kind: "HTTPRoute", namespace: route.metadata.namespace, name: route.metadata.name },
        listenerPort: port,
        ...(certificate ? { clientCertificate: "required" as const } : {}),
        backendRefs: rule.backendRefs,
        filters: rule.filters,
        timeouts: rule.timeouts,
        ...(rule.retry ? { retry: rule.retry } : {}),
        ...(rule.session ? { session: rule.session } : {}),
        ...(rule.invalid ? { invalid: rule.invalid } : {}),
      });
      rule.matches.forEach((m, j) => {
        const match: CompiledMatch = { id: `${id}/match/${j}`, rule: ruleIndex, ...m };
        ranked.push({ index: matches.length, match, route, clusterOrder, ruleIndex: rule.index, matchIndex: j });
        matches.push(match);
      });
    }
    for (const a of draft.attachments) if (a.listener.port === port) result.push({ ...a, matches: ranked });
  }
  return result;
}

/**
 * Compiles the resources of all clusters into one table. Never throws on a user mistake: an invalid
 * object is left out with a diagnostic and a status condition, and the rest compiles.
 */
export async function compileRouteTable(edge: EdgeConfig, manifests: Manifest[]): Promise<CompileResult> {
  const diagnostics = new Diagnostics();
  const clusterOrder = new Map(edge.clusters.map((c, i) => [c.name, i]));
  const { read, others } = readableObjects(
    manifests.filter((m) => clusterOrder.has(m.cluster)),
    diagnostics,
  );
  const checked = validateObjects(read, diagnostics);
  const index = new ResourceIndex(checked.valid);
  for (const { duplicate: d, first } of index.duplicates)
    diagnostics.warn(
      d,
      undefined,
      "Duplicate",
      `${d.kind} ${d.metadata.namespace}/${d.metadata.name} is defined twice in cluster ${d.cluster}: ${where(first)} came first, so this one (${where(d)}) is ignored`,
    );

  const ownListeners = compileGateways(index, edge.gatewayClassName, clusterOrder, diagnostics);
  const sets = compileListenerSets(index, ownListeners, clusterOrder, diagnostics);
  const listeners = [...ownListeners, ...sets.listeners];
  const statuses: ResourceStatus[] = [];
  const backends = new Map<string, CompiledBackend>();
  const secretGrant = (xb: Manifest, namespace: string, name: string) =>
    isReferencePermitted(index, {
      cluster: xb.cluster,
      from: { group: X_GROUP, kind: "XBackend", namespace: xb.metadata.namespace },
      to: { group: "", kind: "Secret", namespace, name },
    });
  const xbackends = new XBackends(index.all("XBackend"), edge.egress, secretGrant, diagnostics);
  const composites = new CompositeBackends(index, xbackends, diagnostics);
  const policies = new BackendPolicies(index, composites, diagnostics);
  const backendTls = new BackendTlsPolicies(index, clusterOrder, diagnostics);
  const routes = compileHTTPRoutes(
    { index, edge, backendTls, backends, xbackends, composites, policies },
    listeners,
    clusterOrder,
    diagnostics,
    statuses,
  );
  statuses.unshift(...gatewayStatuses(listeners), ...listenerSetStatuses(listeners, sets.rejected));
  statuses.push(...checked.statuses, ...reportUnservedRoutes(index, listeners, diagnostics));
  // The served class, as its controller reports it: accepted, with the features it supports.
  for (const gatewayClass of index.all("GatewayClass").filter((c) => c.metadata.name === edge.gatewayClassName))
    statuses.push({
      object: objectRef(gatewayClass),
      conditions: [
        { type: "Accepted", status: "True", reason: "Accepted", message: "served by kedge at the edge" },
        { type: "SupportedVersion", status: "True", reason: "SupportedVersion", message: "" },
      ],
      supportedFeatures: supportedFeatures(),
    });
  statuses.push(...composites.statuses, ...xbackends.statuses, ...policies.statuses, ...backendTls.statuses);
  const ancestors = new BackendAncestors(routes, backends, composites);
  const usedThrough = (status: ResourceStatus, keys: string[]) => {
    status.ancestors = ancestors.of(status.object.cluster, keys).map((ancestorRef) => ({ ancestorRef, conditions: status.conditions }));
  };
  for (const s of xbackends.statuses) usedThrough(s, [backendKey({ ...s.object, kind: "XBackend" })]);
  for (const [s, keys] of policies.targetsOf) usedThrough(s, keys);

  const rules: CompiledRule[] = [];
  const matches: CompiledMatch[] = [];
  const attachments = routes.flatMap((r) => emitRoute(r, clusterOrder.get(r.manifest.cluster) ?? 0, rules, matches));
  const served = listeners.filter(isServed);
  const used = new Set(rules.flatMap(backendsOfRule));
  const servedBackends = [...used].flatMap((id) => backends.get(id) ?? []);
  reportForeignPolicies(others, servedObjects(served, routes, servedBackends, composites), edge.acknowledgedPolicies, diagnostics);
  // A used backend without an endpoint that takes traffic answers 503 at the edge: say so at sync too.
  for (const id of used) {
    const backend = backends.get(id);
    if (!backend || backend.endpoints.some(takesNewTraffic)) continue;
    const { cluster, kind, namespace, name } = backend.source;
    diagnostics.warn(
      index.get(cluster, kind, namespace, name) ?? backend.source,
      undefined,
      "NoReadyEndpoints",
      `${kind} ${namespace}/${name} (port ${backend.port}) has no ready endpoint; requests for it answer 503`,
    );
  }
  const hosts: RouteTable["hosts"] = {};
  for (const protocol of ["HTTP", "HTTPS"] as Protocol[]) {
    if (served.some((l) => l.protocol === protocol)) hosts[protocol] = buildHostIndex(protocol, served, attachments);
  }
  const body = {
    schemaVersion: SCHEMA_VERSION,
    name: edge.name,
    listeners: served.map((l) => ({ id: l.id, protocol: l.protocol, port: l.port, hostname: l.hostname })),
    hosts,
    matches,
    rules,
    // Only backends a served rule uses: a rejected route may have resolved some before it failed.
    backends: Object.fromEntries(
      [...backends.entries()]
        .filter(([id]) => used.has(id))
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([id, backend]) => [id, withPolicies(backend, edge, policies)]),
    ),
    ...(edge.locality ? { locality: localityPolicy(edge) } : {}),
    ...(edge.egress.allowedHostnames || edge.egress.allowLocalhost
      ? {
          egress: {
            ...(edge.egress.allowedHostnames ? { allowedHostnames: edge.egress.allowedHostnames } : {}),
            ...(edge.egress.allowLocalhost ? { allowLocalhost: true as const } : {}),
          },
        }
      : {}),
    ...(edge.healthChecks ? { healthChecks: { maxEndpointsPerRun: edge.healthChecks.maxEndpointsPerRun } } : {}),
  } satisfies Omit<RouteTable, "version">;
  const bodyText = canonicalJson(body);
  const version = (await sha256Hex(bodyText)).slice(0, 20);
  return {
    table: { ...body, version },
    text: canonicalJsonWithLastKey(bodyText, body, "version", version),
    diagnostics: diagnostics.items,
    statuses,
  };
}
