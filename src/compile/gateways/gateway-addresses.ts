/**
 * @module How the edge tells served Gateways apart. Every Gateway shares Cloudflare's one address, so the
 * request's Host is all there is: a Gateway's `spec.addresses` of type `Hostname` are the names clients
 * reach it by, and a listener of it that names no hostname takes exactly those hosts (an HTTPRoute of that
 * Gateway then serves them, and no other Gateway's catch-all listener does). Where two Gateways still
 * claim the same hosts on one port, the sync says so: their routes share those hosts by route precedence.
 */
import type { CompileReport } from "../status/compile-report";
import { REASON } from "../status/conditions";
import type { Manifest } from "../../gateway-api/manifest";
import { specOf } from "../input/typed-objects";
import type { EdgeListener } from "./listener";

/** The Gateway's Hostname addresses (an address without a type is an IPAddress, as the API defaults it). */
export function hostnameAddresses(gateway: Manifest, report: CompileReport): string[] | undefined {
  const hostnames: string[] = [];
  for (const [i, a] of (specOf(gateway, "Gateway").addresses ?? []).entries()) {
    const type = a.type ?? "IPAddress";
    // A value may be left out (or null) for the controller to pick one: no Hostname to take.
    if (type === "Hostname" && typeof a.value === "string") hostnames.push(a.value.toLowerCase());
    else
      report.tell(
        "info",
        gateway,
        `spec.addresses[${i}]`,
        REASON.UnsupportedAddress,
        `address ${String(a.value)} of type ${type} is not used: Cloudflare owns the edge's IP addresses; a Hostname address tells this Gateway's requests apart`,
      );
  }
  return hostnames.length > 0 ? hostnames : undefined;
}

/** The hosts a listener takes, as text: its hostname, its Gateway's Hostname addresses, or every host. */
const hostsOf = (l: EdgeListener): string => l.hostname ?? l.addresses?.join(", ") ?? "every host";

/** Warns, once per pair, about served Gateways whose listeners take the same hosts on the same port. */
export function reportIndistinguishableGateways(listeners: EdgeListener[], report: CompileReport): void {
  const byPlace = new Map<string, EdgeListener[]>();
  for (const l of listeners) {
    const place = `${l.protocol} ${l.port} ${hostsOf(l)}`;
    byPlace.set(place, [...(byPlace.get(place) ?? []), l]);
  }
  const told = new Set<string>();
  for (const [place, ls] of byPlace) {
    const gateways = [...new Set(ls.map((l) => l.gateway))];
    for (const later of gateways.slice(1)) {
      const first = gateways[0]!;
      const pair = `${first.metadata.namespace}/${first.metadata.name} ${later.metadata.namespace}/${later.metadata.name}`;
      if (told.has(pair)) continue;
      told.add(pair);
      report.warn(
        later,
        "spec.listeners",
        REASON.GatewaysOverlap,
        `Gateways ${first.metadata.namespace}/${first.metadata.name} and ${later.metadata.namespace}/${later.metadata.name} both take ${hostsOf(ls[0]!)} on ${place.split(" ").slice(0, 2).join(" port ")}: at the edge they share one address, so the routes of both serve those hosts by route precedence. Give each Gateway spec.addresses of type Hostname (or listener hostnames) to keep them apart`,
      );
    }
  }
}
