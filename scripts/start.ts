/**
 * @module `npm start`: local origins for every example endpoint ▸ sync config/ into local state ▸
 * kedge on http://127.0.0.1:8787 in workerd. Ctrl-C stops everything it started.
 */
import { compileRouteTable } from "../src/compile/compile-route-table";
import type { EdgeConfig } from "../src/compile/input/edge-config";
import type { RouteTable } from "../src/table/route-table";
import { type LocalGateway, startLocalGateway } from "./lib/local-gateway";
import { type NetworkAddresses, networkEndpoints } from "./lib/network-stand-in";
import { type Origin, startOrigin } from "./lib/origin-server";
import { loadConfig } from "./sync/load-config";
import { type SyncOptions, syncCommand, syncTable } from "./cli/commands/sync";
import { commandIO, parseOptions } from "./cli/program";
import { render } from "./cli/render";
import { UserError } from "./sync/user-error";

process.env.WRANGLER_SEND_METRICS ??= "false";

const PORT = Number(process.env.PORT ?? 8787);
const EXAMPLE_CONFIG = "config";
const DEFAULT_PERSIST_TO = ".wrangler/state";
const CONFIG = process.env.KEDGE_CONFIG ?? EXAMPLE_CONFIG;
const PERSIST_TO = process.env.KEDGE_PERSIST_TO ?? DEFAULT_PERSIST_TO;
const LOOPBACK = new Set(["127.0.0.1", "localhost", "::1"]);

/**
 * An origin for each private address a VPC network binding reaches (on a free loopback port), and what each
 * binding's stand-in maps. Every binding kedge.yaml names gets a stand-in, with addresses or not.
 */
async function startNetworkOrigins(edge: EdgeConfig, table: RouteTable): Promise<{ origins: Origin[]; networks: NetworkAddresses }> {
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

async function startOrigins(table: RouteTable): Promise<Origin[]> {
  // One origin per loopback address and port; "localhost" is served on 127.0.0.1.
  const byAddress = new Map<
    string,
    { address: string; port: number; identity: { cluster: string; endpoint: string; backends: string[] } }
  >();
  for (const backend of Object.values(table.backends)) {
    for (const e of backend.endpoints) {
      if (e.network || !LOOPBACK.has(e.host)) continue;
      const address = e.host === "::1" ? "::1" : "127.0.0.1";
      const key = `[${address}]:${e.port}`;
      const entry = byAddress.get(key) ?? { address, port: e.port, identity: { cluster: e.cluster, endpoint: e.id, backends: [] } };
      entry.identity.backends.push(`${backend.source.namespace}/${backend.source.name}`);
      byAddress.set(key, entry);
    }
  }
  const origins: Origin[] = [];
  for (const { address, port, identity } of [...byAddress.values()].sort((a, b) => a.port - b.port)) {
    try {
      origins.push(await startOrigin(identity, port, address));
    } catch (error) {
      await Promise.all(origins.map((o) => o.close()));
      throw new UserError(
        `cannot listen on ${address}:${port} for ${identity.endpoint}: ${(error as Error).message}`,
        "stop whatever uses that port (another `npm start`?)",
      );
    }
  }
  return origins;
}

/** What to try on the example config, with what each shows. */
const exampleRequests = (
  base: string,
) => `  curl -H 'Host: bookinfo.example.com' ${base}/                      # productpage CompositeBackend: all three clusters
  curl -H 'Host: bookinfo.example.com' ${base}/reviews               # reviews v1/v2, 80/20
  curl -H 'Host: bookinfo.example.com' -H 'x-reviews-version: v3' ${base}/reviews
  curl -H 'Host: bookinfo.example.com' ${base}/details/42            # regex match; ServiceImport: us-east + ap-southeast
  curl -H 'Host: eu.bookinfo.example.com' ${base}/                   # productpage, eu-west (wildcard listener)
  curl -H 'Host: ap.bookinfo.example.com' ${base}/details            # details Service: ap-southeast only
  curl -H 'Host: ratings.bookinfo.example.com' ${base}/partner/quote  # XBackend ratings-partner (localhost:9401)
  curl -H 'Host: store.example.com' ${base}/                         # the same manifests in every cluster: one route, all three
  curl -i -H 'Host: store.example.com' ${base}/cart                  # a sticky cart: Set-Cookie store-cart=...
  curl -H 'Host: nowhere.example.org' ${base}/                       # 404 with a JSON error`;

/** For another config: a request to a few of the hostnames its table serves. */
function requestsFor(table: RouteTable, base: string): string {
  const index = table.hosts.HTTP ?? table.hosts.HTTPS;
  const hosts = [...Object.keys(index?.exact ?? {}), ...Object.keys(index?.wildcard ?? {}).map((suffix) => `any.${suffix}`)].slice(0, 6);
  const lines = hosts.map((host) => `  curl -H 'Host: ${host}' ${base}/`);
  // Routes that take any host answer a request without one.
  if (hosts.length === 0 || (index?.any.length ?? 0) > 0) lines.unshift(`  curl ${base}/`);
  return lines.join("\n");
}

async function main(): Promise<void> {
  const loaded = loadConfig(CONFIG);
  const result = await compileRouteTable(loaded.edge, loaded.manifests);
  const { table } = result;
  const loopback = await startOrigins(table);
  const reached = await startNetworkOrigins(loaded.edge, table);
  const origins = [...loopback, ...reached.origins];
  console.log(`started ${loopback.length} local origins: ${loopback.map((o) => `${o.identity.cluster}:${o.port}`).join(" ")}`);
  for (const [binding, addresses] of Object.entries(reached.networks))
    console.log(
      `network ${binding} (local stand-in): ${
        Object.entries(addresses)
          .map(([a, o]) => `${a} → ${o}`)
          .join(", ") || "no addresses"
      }`,
    );
  console.log("");
  // The sync pushes the table compiled above rather than reading and compiling the config again.
  const options = parseOptions<SyncOptions>(syncCommand, ["--config", CONFIG, "--local", "--persist-to", PERSIST_TO]);
  const synced = await syncTable(options, commandIO(options, { out: console.log, err: console.error }), { loaded, result });
  console.log(render(synced, "text"));
  if (synced.code !== 0) throw new UserError(`sync exited ${synced.code}`, "fix the config errors above");
  let gateway: LocalGateway;
  try {
    // The table just synced is the one served, whatever the config names it (a deployed Worker serves its KEDGE_TABLE).
    gateway = await startLocalGateway({
      persistTo: PERSIST_TO,
      port: PORT,
      vars: { KEDGE_TABLE: loaded.edge.name },
      networks: reached.networks,
    });
  } catch (error) {
    await Promise.all(origins.map((o) => o.close()));
    throw new UserError(
      `cannot serve kedge on 127.0.0.1:${PORT}: ${(error as Error).message}`,
      "set PORT=another port, or stop what listens there",
    );
  }
  const base = `http://127.0.0.1:${PORT}`;
  const example = CONFIG === EXAMPLE_CONFIG && PERSIST_TO === DEFAULT_PERSIST_TO;
  console.log(`
kedge is serving on ${base} (Ctrl-C stops it and the origins)

Try:
${example ? exampleRequests(base) : requestsFor(table, base)}

Re-sync after editing ${CONFIG}/:  ${example ? "npm run sync" : `npm run sync -- --config ${CONFIG} --persist-to ${PERSIST_TO}`}   (the edge picks it up within TABLE_REFRESH_SECONDS)
`);
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    console.log("\nstopping kedge and the origins ...");
    await gateway.dispose();
    await Promise.all(origins.map((o) => o.close()));
    process.exit(0);
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}

main().catch((error) => {
  if (error instanceof UserError) console.error(`error: ${error.message}${error.hint ? `\n  fix: ${error.hint}` : ""}`);
  else console.error(error);
  process.exit(error instanceof UserError ? 2 : 1);
});
