/**
 * @module The origins `kedge dev` starts: one on each loopback address and port the table's endpoints name
 * (unless something already listens there: the user's own app, which then gets the traffic), and one for
 * each private address a VPC network binding reaches, on a free loopback port behind the binding's stand-in.
 */
import { connect } from "node:net";
import type { EdgeConfig } from "../../src/compile/input/edge-config";
import type { RouteTable } from "../../src/table/route-table";
import { type NetworkAddresses, networkEndpoints } from "./network-stand-in";
import { type Origin, type OriginIdentity, startOrigin } from "./origin-server";
import { UserError } from "../lib/user-error";

const LOOPBACK = new Set(["127.0.0.1", "localhost", "::1"]);
/** How long a connection to a taken port may take to be accepted before it counts as nobody listening. */
const PROBE_MS = 1000;

/** A loopback address and port an endpoint names, already served by something other than kedge. */
export interface ExistingListener {
  address: string;
  port: number;
  /** The first endpoint id naming it (`<cluster>/<host>:<port>`). */
  endpoint: string;
}

export interface LoopbackOrigins {
  origins: Origin[];
  existing: ExistingListener[];
}

/** Whether something accepts connections on `address`:`port`. */
function acceptsConnections(address: string, port: number): Promise<boolean> {
  return new Promise((resolveProbe) => {
    const socket = connect({ host: address, port, timeout: PROBE_MS });
    const done = (listening: boolean) => {
      socket.destroy();
      resolveProbe(listening);
    };
    socket.once("connect", () => done(true));
    socket.once("error", () => done(false));
    socket.once("timeout", () => done(false));
  });
}

/** What the table's loopback endpoints name, one entry per address and port ("localhost" is 127.0.0.1). */
function loopbackAddresses(table: RouteTable): { address: string; port: number; identity: OriginIdentity }[] {
  const byAddress = new Map<string, { address: string; port: number; identity: OriginIdentity }>();
  for (const backend of Object.values(table.backends))
    for (const e of backend.endpoints) {
      if (e.network || !LOOPBACK.has(e.host)) continue;
      const address = e.host === "::1" ? "::1" : "127.0.0.1";
      const key = `[${address}]:${e.port}`;
      const entry = byAddress.get(key) ?? { address, port: e.port, identity: { cluster: e.cluster, endpoint: e.id, backends: [] } };
      entry.identity.backends.push(`${backend.source.namespace}/${backend.source.name}`);
      byAddress.set(key, entry);
    }
  return [...byAddress.values()].sort((a, b) => a.port - b.port);
}

/** A loopback address and port, as the origins are told apart: `[127.0.0.1]:9101`. */
const loopbackKey = (address: string, port: number): string => `[${address}]:${port}`;

/** Every loopback address and port the table's endpoints name, keyed as `startLoopbackOrigins` skips them. */
export const loopbackKeysOf = (table: RouteTable): Set<string> =>
  new Set(loopbackAddresses(table).map(({ address, port }) => loopbackKey(address, port)));

/** What one loopback address and port got: an origin, the listener already there, or why neither. */
type LoopbackStart = { origin: Origin } | { existing: ExistingListener } | { refused: UserError };

async function startLoopback(address: string, port: number, identity: OriginIdentity): Promise<LoopbackStart> {
  try {
    return { origin: await startOrigin(identity, port, address) };
  } catch (error) {
    if (await acceptsConnections(address, port)) return { existing: { address, port, endpoint: identity.endpoint } };
    return {
      refused: new UserError(
        `cannot listen on ${address}:${port} for ${identity.endpoint}: ${(error as Error).message}`,
        "use a port above 1023 in the EndpointSlice, or start what should answer there first",
      ),
    };
  }
}

/**
 * An origin per loopback address and port the table's endpoints name (but those of `skip`, keyed by
 * loopbackKey: already served). A port something already listens on (the user pointed an EndpointSlice at
 * their own app) gets no origin: the edge sends its requests there, as it would to that endpoint in a cluster.
 * A port that can be neither listened on nor reached is a UserError; with `keepGoing` it is returned instead
 * (a running `kedge dev` says it and goes on), and the origins started stay up.
 */
export async function startLoopbackOrigins(
  table: RouteTable,
  skip: ReadonlySet<string> = new Set(),
  keepGoing = false,
): Promise<LoopbackOrigins & { refused: UserError[] }> {
  const origins: Origin[] = [];
  const existing: ExistingListener[] = [];
  const refused: UserError[] = [];
  for (const { address, port, identity } of loopbackAddresses(table)) {
    if (skip.has(loopbackKey(address, port))) continue;
    const started = await startLoopback(address, port, identity);
    if ("origin" in started) origins.push(started.origin);
    else if ("existing" in started) existing.push(started.existing);
    else if (keepGoing) refused.push(started.refused);
    else {
      await Promise.all(origins.map((o) => o.close()));
      throw started.refused;
    }
  }
  return { origins, existing, refused };
}

/**
 * An origin for each private address a VPC network binding reaches (on a free loopback port), and what each
 * binding's stand-in maps. Every binding kedge.yaml names gets a stand-in, with addresses or not.
 */
export async function startNetworkOrigins(edge: EdgeConfig, table: RouteTable): Promise<{ origins: Origin[]; networks: NetworkAddresses }> {
  const networks: NetworkAddresses = {};
  for (const c of edge.clusters) if (c.endpoints.network) networks[c.endpoints.network] = {};
  const origins: Origin[] = [];
  for (const { network, address, cluster, id } of networkEndpoints(table).values()) {
    const backends = Object.values(table.backends)
      .filter((b) => b.endpoints.some((e) => e.id === id))
      .map((b) => `${b.source.namespace}/${b.source.name}`);
    const origin = await startOrigin({ cluster, endpoint: id, backends });
    origins.push(origin);
    (networks[network] ??= {})[address] = `127.0.0.1:${origin.port}`;
  }
  return { origins, networks };
}
