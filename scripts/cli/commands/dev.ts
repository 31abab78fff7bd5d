/**
 * @module `kedge dev` (and `npm start` in the repository, on the example config): the project served on
 * this machine. The config read as `kedge sync --local` reads it (live clusters included), a local origin
 * for every loopback endpoint it names that nothing listens on yet (and for each private address a VPC
 * network binding reaches, behind that binding's stand-in), the config synced into local state, and the
 * Worker in workerd on 127.0.0.1, with the project's `.dev.vars`. Prints what to try, then runs until
 * Ctrl-C or SIGTERM, which stop everything it started and exit 0; meanwhile it follows the table it serves
 * (dev/follow-table.ts), so a loopback endpoint a later sync adds gets its origin too.
 */
import { randomBytes } from "node:crypto";
import { dirname, join } from "node:path";
import { compileLoaded } from "../../config/compile-loaded";
import { assertPortFree, type LocalGateway, startLocalGateway } from "../../dev/local-gateway";
import { localSessionKey } from "../../dev/local-session-key";
import { fromPackage } from "../../lib/package-files";
import type { Origin } from "../../dev/origin-server";
import { loadConfig, withLiveClusters } from "../../config/load-config";
import { UserError } from "../../lib/user-error";
import { command, type CommandIO, EXIT, type Flag } from "../command";
import { parsePort, wranglerConfigOf } from "../flags";
import { ROUTES_BINDING } from "../../config/wrangler-config";
import { render } from "../render";
import { parseOptions } from "../command-line";
import { type ExistingListener, startLoopbackOrigins, startNetworkOrigins } from "../../dev/dev-origins";
import { requestsToTry } from "../../dev/dev-requests";
import { placeholderSecrets, readDevVars } from "../../dev/dev-vars";
import { followTable, type TableFollower } from "../../dev/follow-table";
import { type SyncOptions, syncCommand, syncTable } from "./sync";

interface DevOptions {
  config: string;
  persistTo: string;
  wranglerConfig: string;
  port: number;
}

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

const closeAll = (origins: Origin[]) => Promise.all(origins.map((o) => o.close()));

/** The edge port cannot be listened on: kedge's own two lines, before workerd would print a fatal trace of its own. */
function edgePortError(port: number, error: unknown): UserError {
  const code = (error as NodeJS.ErrnoException).code;
  const reason =
    code === "EADDRINUSE"
      ? "something already listens there"
      : code === "EACCES"
        ? "not allowed to listen there"
        : (error as Error).message;
  return new UserError(`cannot serve kedge on 127.0.0.1:${port}: ${reason}`, "pass --port another port, or stop what listens there");
}

/** One line per loopback port left to what already listens there. */
const existingListenerLine = (l: ExistingListener) =>
  `${l.address}:${l.port} already has a listener: kedge sends ${l.endpoint}'s requests to it (no local origin started there)`;

/** Serves until SIGINT or SIGTERM; then stops following the table, the gateway (workerd) and the origins. */
function untilStopped(gateway: LocalGateway, follower: TableFollower, origins: Origin[], io: CommandIO): Promise<void> {
  return new Promise((resolve) => {
    const stop = async () => {
      // A second Ctrl-C while stopping meets Node's default: the process ends at once.
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      io.note("\nstopping kedge and the origins ...");
      await follower.stop();
      await gateway.dispose();
      await closeAll(origins);
      resolve();
    };
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
  });
}

export async function serveLocally(options: DevOptions, io: CommandIO): Promise<void> {
  // Live clusters (kubeContext) are read as `kedge sync --local` reads them: their routes are served too.
  const loaded = await withLiveClusters(loadConfig(options.config));
  // Before anything starts or is written: a taken edge port stops here.
  await assertPortFree(options.port).catch((error: unknown) => {
    throw edgePortError(options.port, error);
  });
  const result = await compileLoaded(loaded);
  const { table } = result;
  const loopback = await startLoopbackOrigins(table);
  const reached = await startNetworkOrigins(loaded.edge, table).catch(async (error: unknown) => {
    await closeAll(loopback.origins);
    throw error;
  });
  const origins = [...loopback.origins, ...reached.origins];
  if (loopback.origins.length > 0 || loopback.existing.length === 0)
    io.note(
      `started ${loopback.origins.length} local origin${loopback.origins.length === 1 ? "" : "s"}: ${loopback.origins.map((o) => `${o.identity.cluster}:${o.port}`).join(" ")}`,
    );
  for (const listener of loopback.existing) io.note(existingListenerLine(listener));
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
  // --force: local state is the developer's own, so it serves what the folder says now, however much of the
  // last table that drops (a renamed host, routes removed); the large-drop guard protects deployed edges.
  const syncOptions = parseOptions<SyncOptions>(syncCommand, [
    "--config",
    options.config,
    "--local",
    "--persist-to",
    options.persistTo,
    "--wrangler-config",
    wranglerConfig,
    "--force",
  ]);
  const synced = await syncTable(syncOptions, io, { loaded, result });
  io.note(render(synced, "text"));
  if (synced.code !== EXIT.OK) {
    await closeAll(origins);
    const refused = (synced.data as { refused?: string }).refused;
    throw new UserError(`nothing served: ${refused ?? "the config was refused"}`, "fix the errors above, then run kedge dev again");
  }
  const devVarsFile = join(dirname(wranglerConfig), ".dev.vars");
  const devVars = readDevVars(devVarsFile);
  const placeholders = placeholderSecrets(devVars, `${devVarsFile}.example`);
  if (placeholders.length > 0)
    io.note(
      `! ${devVarsFile}: ${placeholders.join(", ")} still hold${placeholders.length === 1 ? "s" : ""} the placeholder of .dev.vars.example; set each to a long random string (openssl rand -base64 32)`,
    );
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
      // Ctrl-C and SIGTERM stop workerd and the origins here, and the command exits 0.
      ownSignals: true,
      // The Cron Triggers fire as deployed: active health checks, a canary's analysis.
      cron: "schedule",
      onCronError: (cron, error) => io.note(`! the Cron Trigger "${cron}" run failed: ${(error as Error).message}`),
    });
  } catch (error) {
    await closeAll(origins);
    // A peer package or wrangler config it cannot use says so itself.
    throw error instanceof UserError ? error : edgePortError(options.port, error);
  }
  // A table synced from another terminal (or rolled back) may name loopback endpoints this run has no origin for.
  const follower = followTable(await gateway.miniflare.getKVNamespace(ROUTES_BINDING), loaded.edge.name, table, origins, io.note);
  // The stop handlers are in place before the serving line: a SIGTERM sent as soon as it is read stops kedge its
  // own way (exit 0), not by Node's default.
  const stopped = untilStopped(gateway, follower, origins, io);
  const base = `http://127.0.0.1:${options.port}`;
  const defaults = options.config === "config" && options.persistTo === ".wrangler/state";
  io.note(
    [
      "",
      `kedge is serving on ${base} (Ctrl-C stops it and the origins)`,
      "",
      "Try:",
      ...requestsToTry(table, base),
      "",
      ...(gateway.cron.schedules.length > 0
        ? [
            `The Worker's Cron Triggers fire on their schedule, as deployed (active health checks, a canary's analysis): ${gateway.cron.schedules.map((c) => c.expression).join(", ")}`,
            "",
          ]
        : []),
      `The status page (token from .dev.vars KEDGE_STATUS_TOKEN${devVars.KEDGE_STATUS_TOKEN ? "" : ", else made for this run"}):`,
      `  curl -H 'Authorization: Bearer ${statusToken}' -H 'Accept: text/html' ${base}${STATUS_PATH}`,
      "",
      `Re-sync after editing ${options.config}/:  ${fromPackage() ? "npx kedge sync" : "npm run sync --"}${defaults ? "" : ` --config ${options.config} --persist-to ${options.persistTo}`}   (served within TABLE_REFRESH_SECONDS; kedge dev starts an origin for each new loopback endpoint)`,
      "",
    ].join("\n"),
  );
  await stopped;
}

export const devCommand = command<DevOptions>({
  name: "dev",
  summary: "serve the project on this machine: local origins, the config synced into local state, the Worker in workerd",
  description:
    "Reads the config as `kedge sync --local` does (live clusters included), starts a local origin for every loopback endpoint of the config that nothing listens on yet (one that something does listen on gets its requests there), and for each private address a VPC network binding reaches, behind a stand-in for the binding; syncs the config into local state (as sync --force: the folder as it is now, however much of the last table that drops), and serves the Worker on 127.0.0.1 with the wrangler config's bindings and the project's .dev.vars. Prints requests to try and the status page's curl, then runs until Ctrl-C or SIGTERM; meanwhile a table synced from another terminal (or rolled back to) that names new loopback endpoints gets their origins.",
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
