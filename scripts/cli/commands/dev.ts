/**
 * @module `kedge dev` (and `npm start` in the repository, on the example config): the project served on
 * this machine. A local origin for every loopback endpoint the config names (and for each private address
 * a VPC network binding reaches, behind that binding's stand-in), the config synced into local state, and
 * the Worker in workerd on 127.0.0.1, with the project's `.dev.vars`. Prints what to try, then runs until
 * Ctrl-C, which stops everything it started.
 */
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { compileRouteTable } from "../../../src/compile/compile-route-table";
import type { EdgeConfig } from "../../../src/compile/input/edge-config";
import type { RouteTable } from "../../../src/table/route-table";
import { type LocalGateway, startLocalGateway } from "../../lib/local-gateway";
import { localSessionKey } from "../../lib/local-session-key";
import { fromPackage } from "../../lib/package-files";
import { type NetworkAddresses, networkEndpoints } from "../../lib/network-stand-in";
import { type Origin, startOrigin } from "../../lib/origin-server";
import { loadConfig } from "../../sync/load-config";
import { UserError } from "../../sync/user-error";
import { command, type CommandIO, EXIT, type Flag } from "../command";
import { parsePort, wranglerConfigOf } from "../flags";
import { render } from "../render";
import { parseOptions } from "../command-line";
import { type SyncOptions, syncCommand, syncTable } from "./sync";

interface DevOptions {
  config: string;
  persistTo: string;
  wranglerConfig: string;
  port: number;
}

const LOOPBACK = new Set(["127.0.0.1", "localhost", "::1"]);
const STATUS_PATH = "/.well-known/kedge/status";

const DEV_FLAGS: Flag[] = [
  { flags: "--config <dir>", description: "config folder with kedge.yaml and clusters/<name>/", default: "config" },
  { flags: "--persist-to <dir>", description: "local state folder (KV, Durable Objects), as wrangler's flag", default: ".wrangler/state" },
  {
    flags: "--wrangler-config <file>",
    description: "wrangler config file: its bindings and vars; .dev.vars beside it",
    defaultText: "wrangler.json, wrangler.jsonc or wrangler.toml, the first that exists",
  },
  { flags: "--port <port>", description: "where the edge listens on 127.0.0.1", default: 8787, parse: (text) => parsePort(text) },
];

/** `NAME=value` lines of a .dev.vars file (as wrangler reads it: # comments, optional quotes). */
export function readDevVars(file: string): Record<string, string> {
  if (!existsSync(file)) return {};
  const vars: Record<string, string> = {};
  for (const line of readFileSync(file, "utf8").split(/\r?\n/)) {
    const match = /^\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*?)\s*$/.exec(line);
    if (!match || line.trimStart().startsWith("#")) continue;
    vars[match[1]!] = match[2]!.replace(/^(["'])(.*)\1$/, "$2");
  }
  return vars;
}

/** One origin per loopback address and port the table's endpoints name ("localhost" is served on 127.0.0.1). */
async function startLoopbackOrigins(table: RouteTable): Promise<Origin[]> {
  const byAddress = new Map<
    string,
    { address: string; port: number; identity: { cluster: string; endpoint: string; backends: string[] } }
  >();
  for (const backend of Object.values(table.backends))
    for (const e of backend.endpoints) {
      if (e.network || !LOOPBACK.has(e.host)) continue;
      const address = e.host === "::1" ? "::1" : "127.0.0.1";
      const key = `[${address}]:${e.port}`;
      const entry = byAddress.get(key) ?? { address, port: e.port, identity: { cluster: e.cluster, endpoint: e.id, backends: [] } };
      entry.identity.backends.push(`${backend.source.namespace}/${backend.source.name}`);
      byAddress.set(key, entry);
    }
  const origins: Origin[] = [];
  for (const { address, port, identity } of [...byAddress.values()].sort((a, b) => a.port - b.port)) {
    try {
      origins.push(await startOrigin(identity, port, address));
    } catch (error) {
      await Promise.all(origins.map((o) => o.close()));
      throw new UserError(
        `cannot listen on ${address}:${port} for ${identity.endpoint}: ${(error as Error).message}`,
        "stop whatever uses that port (another kedge dev or npm start?)",
      );
    }
  }
  return origins;
}

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

/** A request to each of the first hostnames the table serves (and one without a host when a route takes any). */
function requestsFor(table: RouteTable, base: string): string[] {
  const index = table.hosts.HTTP ?? table.hosts.HTTPS;
  const hosts = [...Object.keys(index?.exact ?? {}), ...Object.keys(index?.wildcard ?? {}).map((suffix) => `any.${suffix}`)].slice(0, 8);
  const lines = hosts.map((host) => `  curl -H 'Host: ${host}' ${base}/`);
  if (hosts.length === 0 || (index?.any.length ?? 0) > 0) lines.unshift(`  curl ${base}/`);
  return lines;
}

/** Serves until SIGINT or SIGTERM; then stops the gateway and the origins. */
function untilStopped(gateway: LocalGateway, origins: Origin[], io: CommandIO): Promise<void> {
  return new Promise((resolve) => {
    const stop = async () => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      io.note("\nstopping kedge and the origins ...");
      await gateway.dispose();
      await Promise.all(origins.map((o) => o.close()));
      resolve();
    };
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
  });
}

export async function serveLocally(options: DevOptions, io: CommandIO): Promise<void> {
  const loaded = loadConfig(options.config);
  const result = await compileRouteTable(loaded.edge, loaded.manifests);
  const { table } = result;
  const loopback = await startLoopbackOrigins(table);
  const reached = await startNetworkOrigins(loaded.edge, table);
  const origins = [...loopback, ...reached.origins];
  io.note(`started ${loopback.length} local origins: ${loopback.map((o) => `${o.identity.cluster}:${o.port}`).join(" ")}`);
  for (const [binding, addresses] of Object.entries(reached.networks))
    io.note(
      `network ${binding} (local stand-in): ${
        Object.entries(addresses)
          .map(([a, o]) => `${a} → ${o}`)
          .join(", ") || "no addresses"
      }`,
    );
  // The sync pushes the table compiled above rather than reading and compiling the config again.
  const wranglerConfig = wranglerConfigOf(options);
  const syncOptions = parseOptions<SyncOptions>(syncCommand, [
    "--config",
    options.config,
    "--local",
    "--persist-to",
    options.persistTo,
    "--wrangler-config",
    wranglerConfig,
  ]);
  const synced = await syncTable(syncOptions, io, { loaded, result });
  io.note(render(synced, "text"));
  if (synced.code !== EXIT.OK) {
    await Promise.all(origins.map((o) => o.close()));
    throw new UserError(`the sync exited ${synced.code}`, "fix the config errors above");
  }
  const devVars = readDevVars(join(dirname(wranglerConfig), ".dev.vars"));
  const statusToken = devVars.KEDGE_STATUS_TOKEN ?? randomBytes(18).toString("base64url");
  let gateway: LocalGateway;
  try {
    // The table just synced is the one served, whatever the wrangler config names (a deployed Worker serves its KEDGE_TABLE).
    gateway = await startLocalGateway({
      persistTo: options.persistTo,
      port: options.port,
      wranglerConfig,
      vars: {
        SESSION_HMAC_KEY: devVars.SESSION_HMAC_KEY ?? localSessionKey(options.persistTo),
        ...devVars,
        KEDGE_STATUS_TOKEN: statusToken,
        KEDGE_TABLE: loaded.edge.name,
      },
      networks: reached.networks,
    });
  } catch (error) {
    await Promise.all(origins.map((o) => o.close()));
    throw new UserError(
      `cannot serve kedge on 127.0.0.1:${options.port}: ${(error as Error).message}`,
      "pass --port another port, or stop what listens there",
    );
  }
  const base = `http://127.0.0.1:${options.port}`;
  const defaults = options.config === "config" && options.persistTo === ".wrangler/state";
  io.note(
    [
      "",
      `kedge is serving on ${base} (Ctrl-C stops it and the origins)`,
      "",
      "Try:",
      ...requestsFor(table, base),
      "",
      `The status page (token from .dev.vars KEDGE_STATUS_TOKEN${devVars.KEDGE_STATUS_TOKEN ? "" : ", else made for this run"}):`,
      `  curl -H 'Authorization: Bearer ${statusToken}' -H 'Accept: text/html' ${base}${STATUS_PATH}`,
      "",
      `Re-sync after editing ${options.config}/:  ${fromPackage() ? "npx kedge sync" : "npm run sync --"}${defaults ? "" : ` --config ${options.config} --persist-to ${options.persistTo}`}   (served within TABLE_REFRESH_SECONDS)`,
      "",
    ].join("\n"),
  );
  await untilStopped(gateway, origins, io);
}

export const devCommand = command<DevOptions>({
  name: "dev",
  summary: "serve the project on this machine: local origins, the config synced into local state, the Worker in workerd",
  description:
    "Starts a local origin for every loopback endpoint of the config (and for each private address a VPC network binding reaches, behind a stand-in for the binding), syncs the config folder into local state, and serves the Worker on 127.0.0.1 with the wrangler config's bindings and the project's .dev.vars. Prints requests to try and the status page's curl, then runs until Ctrl-C.",
  flags: DEV_FLAGS,
  exitCodes: {
    0: "stopped with Ctrl-C (or SIGTERM)",
    2: "the config, a port or a peer package cannot be used",
  },
  examples: ["kedge dev", "kedge dev --port 8788 --config config"],
  async run(options, _args, io) {
    await serveLocally(options, io);
    return { code: EXIT.OK, data: { stopped: true }, text: [] };
  },
});
