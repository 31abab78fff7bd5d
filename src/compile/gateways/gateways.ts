/**
 * @module Gateways of the served class and their listeners: which listeners the edge serves, which
 * route namespaces and kinds each allows, and the Gateway/listener conditions a controller writes.
 * A Gateway applied identically to several clusters is one Gateway (namespace sameness): its listeners
 * are compiled once and take routes from every cluster that holds a copy.
 */
import type { CompileReport } from "../status/compile-report";
import { hostnameProblem } from "../../gateway-api/hostname";
import type { Manifest } from "../../gateway-api/manifest";
import { accepted, fails, programmed, type Reason, REASON } from "../status/conditions";
import type { Condition } from "../status/diagnostics";
import { clientCertificateOn, reportFrontendValidation } from "./frontend-tls";
import { hostnameAddresses, reportIndistinguishableGateways } from "./gateway-addresses";
import { compileLabelSelector } from "../input/label-selector";
import type { ResourceIndex } from "../input/resource-index";
import { groupSameObjects } from "../input/sameness";
import { type Listener, specOf } from "../input/typed-objects";
import { type EdgeListener, isServed } from "./listener";

const GATEWAY_GROUP = "gateway.networking.k8s.io";

/**
 * One listener of a Gateway (its copies), or of a ListenerSet attached to it (`set`, its copies): the
 * set's listeners take routes as the set's own, in the set's namespace.
 */
export function compileListener(
  index: ResourceIndex,
  copies: Manifest[],
  raw: Listener,
  i: number,
  report: CompileReport,
  set?: Manifest[],
): EdgeListener {
  const gateway = copies[0]!;
  const owner = set?.[0] ?? gateway;
  const at = `spec.listeners[${i}]`;
  const { namespace, name: ownerName } = owner.metadata;
  const clusters = copies.map((c) => c.cluster);
  const listener: EdgeListener = {
    id: `${clusters.join(",")}/${namespace}/${ownerName}/${raw.name}`,
    gateway,
    clusters,
    copies,
    ...(set ? { listenerSet: set } : {}),
    name: raw.name,
    protocol: "HTTP",
    port: raw.port,
    allowsNamespace: (ns) => ns === namespace,
    allowsHTTPRoute: true,
    served: false,
  };
  const reject = (reason: Reason, message: string, field: string) => {
    report.refuseListener(owner, `${at}.${field}`, listener, reason, message);
    return listener;
  };
  const notes: Condition[] = [];
  if (raw.protocol !== "HTTP" && raw.protocol !== "HTTPS") {
    return reject(REASON.UnsupportedProtocol, `protocol ${raw.protocol} is not served at the edge (HTTP and HTTPS are)`, "protocol");
  }
  listener.protocol = raw.protocol;
  const { tls } = raw;
  if (tls?.mode === "Passthrough")
    return reject(REASON.UnsupportedValue, "tls.mode Passthrough: Cloudflare terminates TLS before the Worker; use Terminate", "tls.mode");
  if ((tls?.certificateRefs ?? []).length > 0)
    report.tell(
      "info",
      owner,
      `${at}.tls.certificateRefs`,
      REASON.EdgeCertificate,
      `listener ${raw.name}: Cloudflare terminates TLS with the zone's edge certificate for the hostname; certificateRefs are not presented`,
    );
  const clientCertificate = raw.protocol === "HTTPS" ? clientCertificateOn(gateway, listener.port) : undefined;
  if (clientCertificate) listener.clientCertificate = clientCertificate;
  if (raw.hostname !== undefined) {
    // The schema's pattern lets an IP address or a label over 63 characters by.
    const problem = hostnameProblem(raw.hostname, true);
    if (problem) return reject(REASON.UnsupportedValue, `hostname ${problem}`, "hostname");
    listener.hostname = raw.hostname;
  }
  const namespaces = raw.allowedRoutes?.namespaces ?? {};
  const from = namespaces.from ?? "Same";
  if (from === "All") listener.allowsNamespace = () => true;
  else if (from === "Selector") {
    const selector = compileLabelSelector(namespaces.selector);
    if (typeof selector === "string")
      return reject(REASON.UnsupportedValue, `allowedRoutes.namespaces.selector: ${selector}`, "allowedRoutes.namespaces.selector");
    listener.allowsNamespace = (ns, cluster) => selector(index.namespaceLabels(cluster, ns));
  } // else Same, the default: the schema allows no other value.
  const kinds = raw.allowedRoutes?.kinds;
  if (kinds !== undefined) {
    listener.allowsHTTPRoute = kinds.some((k) => k.kind === "HTTPRoute" && (k.group ?? GATEWAY_GROUP) === GATEWAY_GROUP);
    const unsupported = kinds.filter((k) => k.kind !== "HTTPRoute" || (k.group ?? GATEWAY_GROUP) !== GATEWAY_GROUP);
    if (unsupported.length > 0) {
      const names = unsupported.map((k) => k.kind).join(", ");
      notes.push(fails("ResolvedRefs", REASON.InvalidRouteKinds, `route kinds ${names} are not supported; HTTPRoute is`));
      report.warn(
        owner,
        `${at}.allowedRoutes.kinds`,
        REASON.InvalidRouteKinds,
        `listener ${raw.name}: route kinds ${names} are not supported`,
      );
    }
  }
  report.acceptListener(listener.id, notes);
  listener.served = true;
  return listener;
}

/**
 * The Gateways to compile: identical copies across clusters as one (the oldest copy first); a copy that
 * differs from the oldest stays a Gateway of its own cluster, as without sameness, and an info says where.
 */
function servedGateways(index: ResourceIndex, gatewayClassName: string, clusterOrder: Map<string, number>, report: CompileReport) {
  const ofClass = index.all("Gateway").filter((g) => specOf(g, "Gateway").gatewayClassName === gatewayClassName);
  return groupSameObjects(ofClass, clusterOrder).flatMap((group) => {
    for (const { copy, field } of group.differing)
      report.tell(
        "info",
        copy,
        field,
        REASON.NotMerged,
        `differs from the copy in cluster ${group.served.cluster} at ${field}: served as a Gateway of cluster ${copy.cluster} only`,
      );
    return [[group.served, ...group.merged.filter((m) => m !== group.served)], ...group.differing.map((d) => [d.copy])];
  });
}

/** Compiles every Gateway of `gatewayClassName`; listeners that cannot be served stay out (with conditions). */
export function compileGateways(
  index: ResourceIndex,
  gatewayClassName: string,
  clusterOrder: Map<string, number>,
  report: CompileReport,
): EdgeListener[] {
  const listeners: EdgeListener[] = [];
  for (const copies of servedGateways(index, gatewayClassName, clusterOrder, report)) {
    const gateway = copies[0]!;
    const compiled = specOf(gateway, "Gateway").listeners.map((l, i) => compileListener(index, copies, l, i, report));
    const addresses = hostnameAddresses(gateway, report);
    if (addresses) for (const l of compiled) if (l.hostname === undefined) l.addresses = addresses;
    const https = compiled.filter((l) => isServed(l) && l.protocol === "HTTPS");
    reportFrontendValidation(gateway, [...new Set(https.map((l) => l.port))], report);
    // Two listeners of one Gateway on the same port and hostname conflict; neither is served.
    const seen = new Map<string, EdgeListener>();
    for (const l of compiled.filter(isServed)) {
      const key = `${l.port}/${l.hostname ?? ""}`;
      const other = seen.get(key);
      if (!other) {
        seen.set(key, l);
        continue;
      }
      report.conflictListeners(gateway, other, l, `port ${l.port} and hostname ${l.hostname ?? "(none)"}`);
      other.served = false;
      l.served = false;
    }
    listeners.push(...compiled);
  }
  reportIndistinguishableGateways(listeners.filter(isServed), report);
  return listeners;
}

/**
 * The status of each served Gateway, one per copy (a merged Gateway's copies all get the same): its own
 * listeners, and how many ListenerSets attached listeners to it. Written once every route has attached.
 */
export function reportGateways(listeners: EdgeListener[], report: CompileReport): void {
  const byGateway = new Map<Manifest, EdgeListener[]>();
  const sets = new Map<Manifest, Set<Manifest>>();
  for (const l of listeners) {
    if (l.listenerSet) sets.set(l.gateway, (sets.get(l.gateway) ?? new Set()).add(l.listenerSet[0]!));
    else byGateway.set(l.gateway, [...(byGateway.get(l.gateway) ?? []), l]);
  }
  for (const [gateway, ls] of byGateway) {
    const served = ls.filter(isServed).length;
    const copies = ls[0]!.copies;
    const across = copies.length > 1 ? `; one Gateway across clusters ${copies.map((c) => c.cluster).join(", ")}` : "";
    const conditions = served > 0 ? [accepted(`${served} of ${ls.length} listeners served${across}`), programmed()] : notServed();
    const views = ls.map((l) => report.listenerView(l.id, l.name, l.allowsHTTPRoute));
    // Where clients reach it: the edge's addresses are Cloudflare's, so the names it is served under.
    const addresses = [
      ...new Set(ls.filter(isServed).flatMap((l) => l.addresses ?? (l.hostname && !l.hostname.startsWith("*") ? [l.hostname] : []))),
    ];
    for (const copy of copies) {
      report.setConditions(copy, conditions);
      report.setListeners(copy, views, sets.get(gateway)?.size);
      report.setAddresses(copy, addresses);
      if (copies.length > 1) report.setAggregate(copy, { clusters: copies.map((c) => c.cluster) });
    }
  }
}

/** A Gateway or ListenerSet none of whose listeners can be served. */
export const notServed = (): Condition[] => [
  fails("Accepted", REASON.ListenersNotValid, "no listener can be served"),
  fails("Programmed", REASON.Invalid, "no listener can be served"),
];
