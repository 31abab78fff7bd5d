/**
 * @module The compiler: resources of every cluster → one RouteTable plus diagnostics and statuses. Pure: no
 * I/O. Its rooms, in the order it runs them (each imports only the ones above it):
 *   status/    the compile report every stage tells what it found (diagnostics, and the status book it
 *              extends), conditions and reasons
 *   input/     the edge settings, which objects are read, their schemas (and typed view), the index, sameness
 *   gateways/  the listeners of the served Gateways and ListenerSets
 *   backends/  what a backendRef can resolve to (Services, ServiceImports, CompositeBackends, XBackends)
 *              and what their owners say of them (TLS, session persistence, retry budgets)
 *   routes/    HTTPRoutes attached to listeners: rules, matches, filters, timeouts, retry, backendRefs
 *   emit/      the table's rules, matches, host index and backends
 *   report/    what a controller also says: Gateways, ListenerSets, the GatewayClass, ancestors, what is
 *              not served, other implementations' policies, backends without ready endpoints
 */
import { CompileReport } from "./status/compile-report";
import { REASON } from "./status/conditions";
import type { Manifest } from "../gateway-api/manifest";
import { sha256Hex, writeCanonicalJson } from "../table/canonical-json";
import { utf8Length } from "../table/utf8-length";
import type { PartLengths } from "../table/shard-table";
import { type CompiledMatch, type CompiledRule, type Protocol, type RouteTable, SCHEMA_VERSION } from "../table/route-table";
import { backendKey, BackendPolicies } from "./backends/backend-policies";
import { BackendTlsPolicies } from "./backends/backend-tls";
import { CompositeBackends } from "./backends/composite-backends";
import { BackendRegistry } from "./backends/registry";
import type { BackendContext } from "./backends/targets";
import { XBackends } from "./backends/xbackends";
import { emitBackends, emitEdgeSettings } from "./emit/backends";
import { buildHostIndex, type IndexedAttachment } from "./emit/host-index";
import { emitRoute, type ServedRoute, sharedRouteLists } from "./emit/rules";
import { compileGateways, reportGateways } from "./gateways/gateways";
import { isServed } from "./gateways/listener";
import { compileListenerSets, reportListenerSets } from "./gateways/listener-sets";
import { X_GROUP } from "./input/api-groups";
import type { EdgeConfig } from "./input/edge-config";
import { readableObjects } from "./input/kinds";
import { reachableObjects } from "./input/reachable";
import { isReferencePermitted } from "./input/reference-grant";
import { othersObjects, othersParent } from "./input/ownership";
import { sameObjectKey } from "./input/sameness";
import { ResourceIndex } from "./input/resource-index";
import { validateObjects } from "./input/schema/validate-objects";
import { BackendAncestors, backendsOfRule } from "./report/backend-ancestors";
import { reportForeignPolicies, servedObjects } from "./report/foreign-policies";
import { reportGatewayClass } from "./report/gateway-class";
import { reportNothingServed } from "./report/nothing-served";
import { reportNoReadyEndpoints } from "./report/ready-endpoints";
import { accountClusters } from "./report/cluster-accounts";
import { reportDroppedEndpoints } from "./report/dropped-endpoints";
import { reportUnservedRoutes } from "./report/unserved-routes";
import { compileHTTPRoutes } from "./routes/http-routes";
import { type Diagnostic, type ResourceStatus } from "./status/diagnostics";

export interface CompileResult {
  table: RouteTable;
  /**
   * The UTF-8 bytes of the table's canonical JSON, known without making it (a 100k-route table's text is 36 MB,
   * and a table stored in shards is never written whole).
   */
  bytes: number;
  /** The JSON length of each match and rule, known from writing the text for the version: storage planning reads them. */
  partLengths: PartLengths;
  diagnostics: Diagnostic[];
  statuses: ResourceStatus[];
}

const where = (m: Manifest) => `${m.file}:${m.line}`;

/**
 * input: the objects of the edge settings' clusters that kedge reads, another controller's left alone
 * (ownership.ts), the rest validated and indexed; the kinds kedge does not read apart.
 */
function readInput(manifests: Manifest[], edge: EdgeConfig, clusterOrder: Map<string, number>, report: CompileReport) {
  const { reached, unreached } = reachableObjects(manifests.filter((m) => clusterOrder.has(m.cluster)));
  const { read, others } = readableObjects(reached, report);
  const theirs = othersObjects(read, edge.gatewayClassName);
  for (const m of theirs)
    report.info(
      m,
      undefined,
      REASON.Ignored,
      `${m.kind} ${m.metadata.namespace}/${m.metadata.name} is another controller's (not of GatewayClass ${edge.gatewayClassName}); left alone`,
    );
  const ours = read.filter((m) => !theirs.has(m));
  const index = new ResourceIndex(
    validateObjects(ours, report, (route, parentRef) => othersParent(route, parentRef, theirs, read)),
    unreached,
  );
  for (const { duplicate: d, first } of index.duplicates)
    report.warn(
      d,
      undefined,
      REASON.Duplicate,
      `${d.kind} ${d.metadata.namespace}/${d.metadata.name} is defined twice in cluster ${d.cluster}: ${where(first)} came first, so this one (${where(d)}) is ignored`,
    );
  return { index, others, theirs };
}

/** backends: every kind a backendRef can name, validated once, and the policies their owners attach. */
function readBackends(index: ResourceIndex, edge: EdgeConfig, clusterOrder: Map<string, number>, report: CompileReport) {
  const secretGrant = (xb: Manifest, namespace: string, name: string) =>
    isReferencePermitted(index, {
      cluster: xb.cluster,
      from: { group: X_GROUP, kind: "XBackend", namespace: xb.metadata.namespace },
      to: { group: "", kind: "Secret", namespace, name },
    });
  const xbackends = new XBackends(index.all("XBackend"), edge.egress, secretGrant, report);
  const composites = new CompositeBackends(index, xbackends, report);
  const policies = new BackendPolicies(index, xbackends, composites, report);
  const backendTls = new BackendTlsPolicies(index, clusterOrder, report);
  const ctx: BackendContext = {
    index,
    edge,
    backendTls,
    backends: new BackendRegistry(),
    xbackends,
    composites,
    policies,
    droppedSlices: [],
    endpointsById: new Map(),
    serviceRefs: new Map(),
  };
  return ctx;
}

/** A SHA-256 fed a text a piece at a time. */
export interface TextDigest {
  update(piece: string): void;
  /** The hex SHA-256 of the UTF-8 bytes of every piece, in order. */
  hex(): string | Promise<string>;
}

/** Web Crypto's SHA-256, which takes its input whole: the pieces are joined at the end. */
function webCryptoDigest(): TextDigest {
  const pieces: string[] = [];
  return { update: (piece) => void pieces.push(piece), hex: () => sha256Hex(pieces.join("")) };
}

export interface CompileOptions {
  /** The digest the version is the first 20 hex digits of: Web Crypto's unless given. */
  digest?: () => TextDigest;
  /**
   * The caller reads the objects' specs no more (a one-shot command; not a controller, which compiles its objects
   * again): each HTTPRoute's spec is let go as soon as its route is compiled, not held to the end with the table
   * and the statuses (measured with the route's metadata as its identity: a million-route compile's peak heap,
   * 2490 MB, became 1956 MB).
   */
  once?: boolean;
}

/** The pieces a digest is fed: about this many characters each. */
const DIGEST_PIECE = 2 ** 16;

/**
 * The version of a table with this body, the UTF-8 bytes of the table's text and the lengths of its matches and
 * rules, from the body's canonical JSON written a piece at a time: the text itself is not made. Storage planning
 * would otherwise write every match and rule again to measure it (0.3 s of a 100k-route push).
 */
async function versionOf(
  body: Omit<RouteTable, "version">,
  digest: TextDigest,
): Promise<{ version: string; bytes: number; partLengths: PartLengths }> {
  let bytes = 0;
  let piece = "";
  const feed = () => {
    digest.update(piece);
    bytes += utf8Length(piece);
    piece = "";
  };
  const partLengths = { matches: new Int32Array(body.matches.length), rules: new Int32Array(body.rules.length) };
  const write = (written: string) => {
    piece += written;
    if (piece.length >= DIGEST_PIECE) feed();
  };
  writeCanonicalJson(body, write, 2, (text, container, key) => {
    if (container === body.matches) partLengths.matches[key as number] = text.length;
    else if (container === body.rules) partLengths.rules[key as number] = text.length;
  });
  feed();
  const version = (await digest.hex()).slice(0, 20);
  // The table's text is the body's with one field more, wherever "version" sorts: its name, value and a comma.
  return { version, bytes: bytes + utf8Length(`,"version":${JSON.stringify(version)}`), partLengths };
}

/**
 * Compiles the resources of all clusters into one table. Never throws on a user mistake: an invalid
 * object is left out with a diagnostic and a status condition, and the rest compiles.
 */
export async function compileRouteTable(edge: EdgeConfig, manifests: Manifest[], options: CompileOptions = {}): Promise<CompileResult> {
  const report = new CompileReport();
  const body = compileBody(edge, manifests, report, options.once ?? false);
  const { version, bytes, partLengths } = await versionOf(body, (options.digest ?? webCryptoDigest)());
  return {
    table: { ...body, version },
    bytes,
    partLengths,
    diagnostics: report.diagnostics(),
    statuses: report.statuses(),
  };
}

/**
 * The table without its version, every finding told to `report`. The drafts it is made from (routes, rules,
 * matches and what indexes them: about a third of what a compile holds) are gone once it returns, before the
 * table's text is made.
 */
function compileBody(edge: EdgeConfig, manifests: Manifest[], report: CompileReport, once: boolean): Omit<RouteTable, "version"> {
  const clusterOrder = new Map(edge.clusters.map((c, i) => [c.name, i]));
  const { index, others, theirs } = readInput(manifests, edge, clusterOrder, report);

  const ownListeners = compileGateways(index, edge.gatewayClassName, clusterOrder, report);
  if (index.all("Gateway").length === 0) reportNothingServed(theirs, edge.gatewayClassName, report);
  const sets = compileListenerSets(index, ownListeners, clusterOrder, report);
  const listeners = [...ownListeners, ...sets.listeners];

  const ctx = readBackends(index, edge, clusterOrder, report);
  // A route that is another controller's in one cluster is not a mistyped one where its Gateway is missing.
  const othersRoutes = new Set([...theirs].filter((m) => m.kind === "HTTPRoute").map(sameObjectKey));
  const rules: CompiledRule[] = [];
  const matches: CompiledMatch[] = [];
  const attachments: IndexedAttachment[] = [];
  const routes: ServedRoute[] = [];
  const shared = sharedRouteLists();
  // Each route's rules go into the table as it compiles; its draft is let go before the next is made.
  for (const draft of compileHTTPRoutes(ctx, listeners, clusterOrder, report, othersRoutes, once)) {
    const emitted = emitRoute(draft, clusterOrder.get(draft.manifest.cluster) ?? 0, rules, matches, shared);
    routes.push(emitted.served);
    for (const a of emitted.attachments) attachments.push(a);
  }
  const served = listeners.filter(isServed);
  const hosts: RouteTable["hosts"] = {};
  for (const protocol of ["HTTP", "HTTPS"] as Protocol[])
    if (served.some((l) => l.protocol === protocol)) hosts[protocol] = buildHostIndex(protocol, served, attachments);
  const used = new Set(rules.flatMap(backendsOfRule));
  const backends = emitBackends(ctx.backends, used, edge, ctx.policies);

  reportGateways(listeners, report);
  reportListenerSets(listeners, sets.rejected, report);
  reportUnservedRoutes(index, listeners, report);
  reportGatewayClass(index, edge.gatewayClassName, report);
  // The Gateways each backend is used through: what XBackends and backend policies report (a walk over every
  // served route's backends that a config without either needs not take).
  if (ctx.xbackends.manifests.length > 0 || ctx.policies.targetsOf.size > 0) {
    const ancestors = new BackendAncestors(routes, rules, ctx.backends, ctx.composites);
    for (const xb of ctx.xbackends.manifests)
      report.setAncestors(xb, ancestors.of(xb.cluster, [backendKey({ ...xb.metadata, cluster: xb.cluster, kind: "XBackend" })]));
    for (const [policy, keys] of ctx.policies.targetsOf) report.setAncestors(policy, ancestors.of(policy.cluster, keys));
  }
  reportForeignPolicies(
    others,
    () => servedObjects(served, routes, Object.values(backends), ctx.composites),
    edge.acknowledgedPolicies,
    report,
  );
  const dropped = reportDroppedEndpoints(ctx.droppedSlices, index, report);
  const accounts = accountClusters(edge, manifests, routes, rules, Object.values(backends), dropped, report);
  reportNoReadyEndpoints(
    [...used].flatMap((id) => backends[id] ?? []),
    index,
    new Set(edge.clusters.filter((c) => c.state === "Draining").map((c) => c.name)),
    report,
  );

  return {
    schemaVersion: SCHEMA_VERSION,
    name: edge.name,
    listeners: served.map((l) => ({ id: l.id, protocol: l.protocol, port: l.port, hostname: l.hostname })),
    hosts,
    matches,
    rules,
    backends,
    ...emitEdgeSettings(edge, accounts),
  };
}
