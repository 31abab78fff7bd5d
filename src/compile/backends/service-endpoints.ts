/**
 * @module Resolves a Service port of one cluster to the endpoints the edge can reach (DESIGN.md §3):
 * EndpointSlice addresses, the Service's load-balancer ingress, or a per-cluster hostname template.
 */
import { isJsonObject, type Manifest } from "../../gateway-api/manifest";
import type { CompiledEndpoint } from "../../table/route-table";
import type { ClusterSettings } from "../input/edge-config";
import { isIpLiteral } from "../../gateway-api/hostname";
import type { ResourceIndex } from "../input/resource-index";
import { specOf } from "../input/typed-objects";
import type { ServicePort, Transport } from "./service-transport";

/** "its 3 endpoints are left out" */
export const leftOut = (n: number) => `its ${n} endpoint${n === 1 ? " is" : "s are"} left out`;

export type { ServicePort };

/** The Service's ports; a port without a name has the name "" (as in EndpointSlice ports). */
export function servicePorts(service: Manifest): ServicePort[] {
  return (specOf(service, "Service").ports ?? []).map((p) => ({
    name: p.name ?? "",
    port: p.port,
    ...(p.appProtocol === undefined ? {} : { appProtocol: p.appProtocol }),
  }));
}

function endpoint(
  cluster: ClusterSettings,
  transport: Transport,
  host: string,
  port: number,
  flags: Pick<CompiledEndpoint, "ready" | "serving" | "terminating" | "zone">,
): CompiledEndpoint {
  const urlHost = host.includes(":") ? `[${host}]` : host;
  // Only a name can be resolved for the Worker; an IP address from a load balancer is called as it is.
  const keep = "keepClientHost" in cluster.endpoints && cluster.endpoints.keepClientHost && !isIpLiteral(host) && !transport.serverName;
  const { network } = cluster.endpoints;
  return {
    // Cluster-qualified: two clusters' pods may share an address (overlapping pod CIDRs) and stay apart.
    id: `${cluster.name}/${urlHost}:${port}`,
    cluster: cluster.name,
    ...transport,
    host,
    port,
    weight: cluster.weight,
    ...flags,
    ...(keep ? { keepClientHost: true as const } : {}),
    ...(network ? { network } : {}),
  };
}

/** An EndpointSlice of a used Service whose endpoints the edge cannot use, and why (a warning names each). */
export interface DroppedSlice {
  slice: Manifest;
  service: Manifest;
  why: string;
}

const portNames = (ports: { name?: string }[]) => ports.map((p) => JSON.stringify(p.name ?? "")).join(", ") || "none";

/**
 * Kubernetes port semantics: the backendRef's port names a Service port; its endpoints are the
 * EndpointSlice ports with that port's name, so slices of one Service may carry different port numbers.
 * A condition left unset counts as ready/serving (EndpointSlice API: nil means ready). A slice of the
 * Service that has no usable port of that name is noted in `dropped`.
 */
function fromEndpointSlices(
  index: ResourceIndex,
  cluster: ClusterSettings,
  transport: Transport,
  service: Manifest,
  port: ServicePort,
  dropped: DroppedSlice[],
): CompiledEndpoint[] {
  const result: CompiledEndpoint[] = [];
  for (const slice of index.endpointSlicesOf(cluster.name, service.metadata.namespace, service.metadata.name)) {
    const data = specOf(slice, "EndpointSlice");
    const count = (data.endpoints ?? []).length;
    const slicePort = (data.ports ?? []).find((p) => (p.name ?? "") === port.name);
    if (slicePort === undefined) {
      const named = port.name === "" ? "an unnamed port" : `a port named ${JSON.stringify(port.name)}`;
      dropped.push({
        slice,
        service,
        why: `has no port matching Service ${service.metadata.namespace}/${service.metadata.name} port ${port.port} (${named}; the slice's ports: ${portNames(data.ports ?? [])}): ${leftOut(count)}`,
      });
      continue;
    }
    // A slice port may leave its number out (the API's "all ports"): nothing the edge can call.
    if (slicePort.port === undefined) {
      dropped.push({
        slice,
        service,
        why: `port ${JSON.stringify(port.name)} has no number: ${leftOut(count)}`,
      });
      continue;
    }
    for (const e of data.endpoints ?? []) {
      const conditions = e.conditions ?? {};
      const ready = conditions.ready !== false;
      const serving = conditions.serving ?? ready;
      const terminating = conditions.terminating === true;
      result.push(endpoint(cluster, transport, e.addresses[0], slicePort.port, { ready, serving, terminating, zone: e.zone }));
    }
  }
  return result;
}

function fromLoadBalancer(cluster: ClusterSettings, transport: Transport, service: Manifest, port: ServicePort): CompiledEndpoint[] {
  const lb = isJsonObject(service.status.loadBalancer) ? service.status.loadBalancer : {};
  const ingress = Array.isArray(lb.ingress) ? lb.ingress : [];
  return ingress.flatMap((i) => {
    if (!isJsonObject(i)) return [];
    const host = typeof i.hostname === "string" ? i.hostname : typeof i.ip === "string" ? i.ip : undefined;
    return host ? [endpoint(cluster, transport, host, port.port, { ready: true, serving: true, terminating: false })] : [];
  });
}

function fromHostname(
  cluster: ClusterSettings,
  transport: Transport,
  service: Manifest,
  port: ServicePort,
  template: string,
  templatePort?: number,
): CompiledEndpoint[] {
  const host = template
    .replaceAll("{service}", service.metadata.name)
    .replaceAll("{namespace}", service.metadata.namespace)
    .replaceAll("{cluster}", cluster.name);
  return [endpoint(cluster, transport, host, templatePort ?? port.port, { ready: true, serving: true, terminating: false })];
}

/** Endpoints of one Service port in its cluster, called with `transport`, deduplicated by id, in a stable order. */
export function resolveServiceEndpoints(
  index: ResourceIndex,
  cluster: ClusterSettings,
  transport: Transport,
  service: Manifest,
  port: ServicePort,
  dropped: DroppedSlice[],
): CompiledEndpoint[] {
  const source = cluster.endpoints;
  const found =
    source.from === "EndpointSlice"
      ? fromEndpointSlices(index, cluster, transport, service, port, dropped)
      : source.from === "LoadBalancer"
        ? fromLoadBalancer(cluster, transport, service, port)
        : fromHostname(cluster, transport, service, port, source.hostnameTemplate, source.port);
  const byId = new Map<string, CompiledEndpoint>();
  for (const e of found) {
    const seen = byId.get(e.id);
    // The same address in two slices (e.g. during a rollout): keep the healthier view.
    if (!seen || (!seen.ready && e.ready)) byId.set(e.id, e);
  }
  return [...byId.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}
