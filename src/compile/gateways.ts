/**
 * @module Gateways of the served class and their listeners: which listeners the edge serves, which
 * route namespaces and kinds each allows, and the Gateway/listener conditions a controller writes.
 */
import { hostnameProblem } from "../gateway-api/hostname";
import { isJsonObject, type Manifest } from "../gateway-api/manifest";
import type { Protocol } from "../table/route-table";
import type { Condition, Diagnostics, ResourceStatus } from "./diagnostics";
import { objectRef } from "./diagnostics";
import { compileLabelSelector } from "./label-selector";
import type { ResourceIndex } from "./resource-index";

export interface EdgeListener {
  /** `<cluster>/<namespace>/<gateway>/<listener>` */
  id: string;
  gateway: Manifest;
  name: string;
  protocol: Protocol;
  port: number;
  hostname?: string;
  /** Whether a route in `namespace` (of the gateway's cluster) may attach. */
  allowsNamespace: (namespace: string) => boolean;
  /** Whether HTTPRoute is among allowedRoutes.kinds (default: yes). */
  allowsHTTPRoute: boolean;
  attachedRoutes: number;
  conditions: Condition[];
}

const ok = (type: string, reason: string, message = ""): Condition => ({ type, status: "True", reason, message });
const bad = (type: string, reason: string, message: string): Condition => ({ type, status: "False", reason, message });

const GATEWAY_GROUP = "gateway.networking.k8s.io";

function compileListener(index: ResourceIndex, gateway: Manifest, raw: unknown, i: number, diagnostics: Diagnostics): EdgeListener | null {
  const at = `spec.listeners[${i}]`;
  if (!isJsonObject(raw) || typeof raw.name !== "string") {
    diagnostics.error(gateway, at, "UnsupportedValue", "listener needs a name");
    return null;
  }
  const {
    cluster,
    namespace,
    name: gatewayName,
  } = { cluster: gateway.cluster, namespace: gateway.metadata.namespace, name: gateway.metadata.name };
  const listener: EdgeListener = {
    id: `${cluster}/${namespace}/${gatewayName}/${raw.name}`,
    gateway,
    name: raw.name,
    protocol: "HTTP",
    port: typeof raw.port === "number" ? raw.port : 0,
    allowsNamespace: (ns) => ns === namespace,
    allowsHTTPRoute: true,
    attachedRoutes: 0,
    conditions: [],
  };
  const reject = (reason: string, message: string, field: string) => {
    diagnostics.error(gateway, `${at}.${field}`, reason, `listener ${raw.name}: ${message}`);
    listener.conditions.push(bad("Accepted", reason, message), bad("Programmed", "Invalid", message));
    return listener;
  };
  if (raw.protocol !== "HTTP" && raw.protocol !== "HTTPS") {
    return reject("UnsupportedProtocol", `protocol ${String(raw.protocol)} is not served at the edge (HTTP and HTTPS are)`, "protocol");
  }
  listener.protocol = raw.protocol;
  if (!Number.isInteger(raw.port) || listener.port < 1 || listener.port > 65535)
    return reject("UnsupportedValue", "port must be 1-65535", "port");
  if (raw.hostname !== undefined) {
    const problem = typeof raw.hostname === "string" ? hostnameProblem(raw.hostname, true) : "must be a string";
    if (problem) return reject("UnsupportedValue", `hostname ${problem}`, "hostname");
    listener.hostname = raw.hostname as string;
  }
  const allowed = isJsonObject(raw.allowedRoutes) ? raw.allowedRoutes : {};
  const namespaces = isJsonObject(allowed.namespaces) ? allowed.namespaces : {};
  const from = namespaces.from ?? "Same";
  if (from === "All") listener.allowsNamespace = () => true;
  else if (from === "Selector") {
    const selector = compileLabelSelector(namespaces.selector);
    if (typeof selector === "string")
      return reject("UnsupportedValue", `allowedRoutes.namespaces.selector: ${selector}`, "allowedRoutes.namespaces.selector");
    listener.allowsNamespace = (ns) => selector(index.namespaceLabels(cluster, ns));
  } else if (from !== "Same") {
    return reject("UnsupportedValue", `allowedRoutes.namespaces.from must be All, Same or Selector`, "allowedRoutes.namespaces.from");
  }
  if (Array.isArray(allowed.kinds)) {
    const kinds = allowed.kinds.filter(isJsonObject);
    listener.allowsHTTPRoute = kinds.some((k) => k.kind === "HTTPRoute" && (k.group ?? GATEWAY_GROUP) === GATEWAY_GROUP);
    const unsupported = kinds.filter((k) => k.kind !== "HTTPRoute" || (k.group ?? GATEWAY_GROUP) !== GATEWAY_GROUP);
    if (unsupported.length > 0) {
      const names = unsupported.map((k) => String(k.kind)).join(", ");
      listener.conditions.push(bad("ResolvedRefs", "InvalidRouteKinds", `route kinds ${names} are not supported; HTTPRoute is`));
      diagnostics.warn(
        gateway,
        `${at}.allowedRoutes.kinds`,
        "InvalidRouteKinds",
        `listener ${raw.name}: route kinds ${names} are not supported`,
      );
    }
  }
  listener.conditions.unshift(ok("Accepted", "Accepted"), ok("Programmed", "Programmed"));
  if (!listener.conditions.some((c) => c.type === "ResolvedRefs")) listener.conditions.push(ok("ResolvedRefs", "ResolvedRefs"));
  return listener;
}

/** True when the listener was accepted and is served. */
export const isServed = (l: EdgeListener): boolean => l.conditions.some((c) => c.type === "Accepted" && c.status === "True");

/** Compiles every Gateway of `gatewayClassName`; listeners that cannot be served stay out (with conditions). */
export function compileGateways(index: ResourceIndex, gatewayClassName: string, diagnostics: Diagnostics): EdgeListener[] {
  const listeners: EdgeListener[] = [];
  for (const gateway of index.all("Gateway")) {
    if (gateway.spec.gatewayClassName !== gatewayClassName) continue;
    const raw = Array.isArray(gateway.spec.listeners) ? gateway.spec.listeners : [];
    const compiled = raw.flatMap((l, i) => compileListener(index, gateway, l, i, diagnostics) ?? []);
    // Two listeners of one Gateway on the same port and hostname conflict; neither is served.
    const seen = new Map<string, EdgeListener>();
    for (const l of compiled.filter(isServed)) {
      const key = `${l.port}/${l.hostname ?? ""}`;
      const other = seen.get(key);
      if (!other) {
        seen.set(key, l);
        continue;
      }
      for (const c of [l, other]) {
        c.conditions = [
          bad("Accepted", "HostnameConflict", "another listener has the same port and hostname"),
          ok("Conflicted", "HostnameConflict"),
        ];
        diagnostics.error(
          gateway,
          "spec.listeners",
          "HostnameConflict",
          `listeners ${other.name} and ${l.name} share port ${l.port} and hostname ${l.hostname ?? "(none)"}`,
        );
      }
    }
    listeners.push(...compiled);
  }
  return listeners;
}

/** The status block of each served Gateway. */
export function gatewayStatuses(listeners: EdgeListener[]): ResourceStatus[] {
  const byGateway = new Map<Manifest, EdgeListener[]>();
  for (const l of listeners) byGateway.set(l.gateway, [...(byGateway.get(l.gateway) ?? []), l]);
  return [...byGateway.entries()].map(([gateway, ls]) => {
    const served = ls.filter(isServed).length;
    return {
      object: objectRef(gateway),
      conditions:
        served > 0
          ? [ok("Accepted", "Accepted", `${served} of ${ls.length} listeners served`), ok("Programmed", "Programmed")]
          : [bad("Accepted", "ListenersNotValid", "no listener can be served"), bad("Programmed", "Invalid", "no listener can be served")],
      listeners: ls.map((l) => ({ name: l.name, attachedRoutes: l.attachedRoutes, conditions: l.conditions })),
    };
  });
}
