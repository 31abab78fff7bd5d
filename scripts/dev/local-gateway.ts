/**
 * @module Serves the real Worker in workerd through Miniflare: bundled with esbuild, configured from
 * wrangler.toml, with KV and Durable Objects persisted where `wrangler dev --persist-to DIR` keeps them, and
 * the config's Cron Triggers fired through Miniflare (local-cron.ts): on their schedule for `kedge dev` and
 * `npm start`, on demand (`cron.tick()`) for the tests. Used by `npm start`, the end-to-end tests and the benchmark.
 */
import { mkdirSync } from "node:fs";
import { createServer } from "node:net";
import { dirname, join, resolve } from "node:path";
import type { Miniflare, V4WorkerOptions as WorkerOptions } from "miniflare";
import { localSessionKey } from "./local-session-key";
import { fromPackage, packageRoot } from "../lib/package-files";
import { miniflareStarter } from "./miniflare-runtime";
import { type NetworkAddresses, networkStandIns } from "./network-stand-in";
import { readCrons, readLocalWorkerOptions } from "../config/wrangler-config";
import { CronSyntaxError, LocalCron } from "./local-cron";
import { UserError } from "../lib/user-error";
import { WORKER_BUILD_OPTIONS } from "./worker-build.mjs";

/** Bundles src/index.ts (or another entry) into one ES module for workerd; returns its path. */
export async function bundleWorker(outDir: string, entry = join(packageRoot(), "src/index.ts")): Promise<string> {
  mkdirSync(outDir, { recursive: true });
  const outfile = join(outDir, "worker.mjs");
  // Only the repository bundles (the package ships dist/worker.mjs, built when it was packed).
  const { build } = await import("esbuild");
  await build({ ...WORKER_BUILD_OPTIONS, entryPoints: [entry], outfile });
  return outfile;
}

/** The Worker to serve: the package's, built when it was packed; in the repository, src/index.ts bundled now. */
export async function workerScript(): Promise<string> {
  const root = packageRoot();
  return fromPackage() ? join(root, "dist", "worker.mjs") : bundleWorker(join(root, ".wrangler", "kedge-bundle"));
}

export interface LocalGatewayOptions {
  /** Local state folder (the sync's --persist-to); omit for in-memory state. */
  persistTo?: string;
  port?: number;
  wranglerConfig?: string;
  /** Overrides of wrangler.toml [vars]. */
  vars?: Record<string, string>;
  /** A bundled script; bundled from src/index.ts when omitted. */
  scriptPath?: string;
  /** Extra Workers served by the same Miniflare (the benchmark's bare proxy). */
  extraWorkers?: WorkerOptions[];
  /** Stand-ins for the VPC network bindings the config names, with the private addresses each maps. */
  networks?: NetworkAddresses;
  /**
   * The caller stops the gateway itself on SIGINT and SIGTERM (`kedge dev`): Miniflare's own handlers for
   * them, which end the process at once with 130 or 143, are taken off again. Its exit handler stays, so
   * workerd still goes with the process however it ends.
   */
  ownSignals?: boolean;
  /**
   * The wrangler config's Cron Triggers: `schedule` fires them at their times, as Cloudflare does (`kedge dev`,
   * `npm start`); `manual` (the default) only when `cron.tick()` is called (tests, the benchmark).
   */
  cron?: "schedule" | "manual";
  /** The clock the schedule reads (tests move it ahead to reach a minute boundary sooner). */
  clock?: () => number;
  /** Told when a scheduled run fails. */
  onCronError?: (cron: string, error: unknown) => void;
}

export interface LocalGateway {
  url: URL;
  miniflare: Miniflare;
  /** The Worker's Cron Triggers, fired through Miniflare (on schedule, or by `tick()`). */
  cron: LocalCron;
  dispose(): Promise<void>;
}

/** The Worker's Miniflare options from wrangler.toml, pointing at a bundled script. */
export function gatewayWorkerOptions(
  scriptPath: string,
  wranglerConfig = join(packageRoot(), "wrangler.toml"),
  vars: Record<string, string> = {},
): WorkerOptions {
  const workerOptions = readLocalWorkerOptions(wranglerConfig);
  return {
    ...workerOptions,
    name: "kedge",
    // Module names are paths below modulesRoot: the script's own folder, wherever kedge is installed
    // (workerd refuses a name that climbs out of it with "..").
    modulesRoot: dirname(scriptPath),
    modules: [{ type: "ESModule", path: scriptPath }],
    bindings: { ...workerOptions.bindings, ...vars },
  } as WorkerOptions;
}

/**
 * Rejects with the listen error (EADDRINUSE, EACCES) when `port` cannot be listened on at `host`. Checked
 * before Miniflare starts: workerd meets a taken port with a fatal stack trace of its own on stderr.
 */
export function assertPortFree(port: number, host = "127.0.0.1"): Promise<void> {
  return new Promise((resolveFree, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(port, host, () => server.close(() => resolveFree()));
  });
}

const SIGNALS = ["SIGINT", "SIGTERM"] as const;

/**
 * The SIGINT and SIGTERM listeners present now; `restore()` takes off any added since. Miniflare's exit hook adds
 * them (release 4 in its constructor, release 5 as it starts), and a command that stops its own way owns them.
 */
function signalListenersNow(): { restore(): void } {
  const before = new Map(SIGNALS.map((signal) => [signal, new Set(process.listeners(signal))]));
  return {
    restore() {
      for (const signal of SIGNALS)
        for (const listener of process.listeners(signal)) if (!before.get(signal)?.has(listener)) process.off(signal, listener);
    },
  };
}

export async function startLocalGateway(options: LocalGatewayOptions = {}): Promise<LocalGateway> {
  if (options.port) await assertPortFree(options.port);
  const scriptPath = options.scriptPath ?? (await workerScript());
  const persistRoot = options.persistTo ? resolve(options.persistTo, "v3") : undefined;
  const startMiniflare = miniflareStarter("serving the edge locally");
  const gateway = gatewayWorkerOptions(scriptPath, options.wranglerConfig, {
    SESSION_HMAC_KEY: localSessionKey(options.persistTo),
    ...options.vars,
  });
  const networks = networkStandIns(options.networks ?? {});
  const create = () =>
    startMiniflare({
      host: "127.0.0.1",
      port: options.port ?? 0,
      cf: false,
      ...(persistRoot ? { defaultPersistRoot: persistRoot, kvPersist: true, durableObjectsPersist: true, cachePersist: true } : {}),
      workers: [
        { ...gateway, serviceBindings: { ...gateway.serviceBindings, ...networks.serviceBindings } } as WorkerOptions,
        ...networks.workers,
        ...(options.extraWorkers ?? []),
      ],
    });
  const wranglerConfig = options.wranglerConfig ?? join(packageRoot(), "wrangler.toml");
  let miniflare: Miniflare | undefined;
  const fire = async (cron: string, scheduledTime: number) => {
    const worker = await miniflare!.getWorker("kedge");
    await worker.scheduled({ cron, scheduledTime: new Date(scheduledTime) });
  };
  let cron: LocalCron;
  try {
    cron = new LocalCron(readCrons(wranglerConfig), fire, {
      ...(options.clock ? { now: options.clock } : {}),
      ...(options.onCronError ? { onError: options.onCronError } : {}),
    });
  } catch (error) {
    if (!(error instanceof CronSyntaxError)) throw error;
    throw new UserError(
      `${wranglerConfig}: ${error.message}`,
      "fix [triggers] crons (five fields: minute hour day-of-month month day-of-week)",
    );
  }
  const signals = signalListenersNow();
  miniflare = create();
  if (options.ownSignals) signals.restore();
  const url = await miniflare.ready;
  if (options.ownSignals) signals.restore();
  if (options.cron === "schedule") cron.start();
  return {
    url,
    miniflare,
    cron,
    dispose: async () => {
      await cron.stop();
      await miniflare!.dispose();
    },
  };
}
