/**
 * @module End-to-end harness: a config folder written to a temp dir, loopback origins, the sync CLI as a
 * real child process, and the real Worker in workerd (Miniflare) reading the same persisted state.
 */
import { spawn } from "node:child_process";
import { request } from "node:http";
import { createServer } from "node:net";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { type LocalGateway, startLocalGateway } from "../../scripts/dev/local-gateway";
import type { NetworkAddresses } from "../../scripts/dev/network-stand-in";
import { inject } from "vitest";
import { type EchoResponse, type Origin, startOrigin } from "../../scripts/dev/origin-server";

export const ROOT = resolve(import.meta.dirname, "..", "..");
/** How `npm run sync` runs a command: as one esbuild bundle (scripts/run-bundled.mjs). */
export const RUN_BUNDLED = join(ROOT, "scripts", "run-bundled.mjs");

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  timeoutMs?: number;
  /** Added to this process's environment; an undefined value leaves that variable out. */
  env?: Record<string, string | undefined>;
  /** Where it runs (the project folder by default). */
  cwd?: string;
}

/** Runs a project command (e.g. scripts/sync.ts) as a child process, the way `npm run sync` does. */
export function runScript(script: string, args: string[], options: RunOptions = {}): Promise<CliRun> {
  return runProcess(process.execPath, [RUN_BUNDLED, join(ROOT, script), ...args], options);
}

/** Runs a command in the project folder and collects what it printed; killed after `timeoutMs` (60 s). */
export function runProcess(command: string, args: string[], options: RunOptions = {}): Promise<CliRun> {
  return new Promise((resolveRun, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd ?? ROOT,
      // An undefined value leaves that variable out.
      env: { ...process.env, WRANGLER_SEND_METRICS: "false", ...options.env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 60_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolveRun({ code: code ?? -1, stdout, stderr });
    });
  });
}

/** A port nothing listens on now, on `host`. */
/** GET `path` on the edge at 127.0.0.1:`port` with a Host header, as a client of a real hostname sends it (fetch() sends the URL's host and no other). */
export function getWithHost(port: number, host: string, path = "/"): Promise<{ status: number; body: string }> {
  return new Promise((resolveGet, reject) => {
    const req = request({ host: "127.0.0.1", port, path, headers: { host } }, (res) => {
      let body = "";
      res.on("data", (d: Buffer) => (body += d.toString()));
      res.on("end", () => resolveGet({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

export function freePort(host = "127.0.0.1"): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer().listen(0, host, () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolvePort(port));
    });
    server.on("error", reject);
  });
}

/** A scratch folder with config/ and state/ inside; `files` are written relative to config/. */
export class Workspace {
  readonly dir = mkdtempSync(join(tmpdir(), "kedge-e2e-"));
  readonly config = join(this.dir, "config");
  readonly state = join(this.dir, "state");

  write(files: Record<string, string>): void {
    for (const [name, text] of Object.entries(files)) {
      const path = join(this.config, name);
      mkdirSync(resolve(path, ".."), { recursive: true });
      writeFileSync(path, text);
    }
  }

  /** `npm run sync -- <args>` on this workspace. */
  sync(...args: string[]): Promise<CliRun> {
    return runScript("scripts/sync.ts", ["--config", this.config, "--persist-to", this.state, ...args]);
  }

  /** `kedge <command> <args>` on this workspace. */
  kedge(command: string, ...args: string[]): Promise<CliRun> {
    return runScript("scripts/cli/main.ts", [command, "--config", this.config, "--persist-to", this.state, ...args]);
  }

  remove(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

export async function startOrigins(names: string[], cluster = "c1"): Promise<Record<string, Origin>> {
  const entries = await Promise.all(names.map(async (n) => [n, await startOrigin({ cluster, endpoint: n, backends: [n] })] as const));
  return Object.fromEntries(entries);
}

/**
 * The Worker in workerd, reading `state`, re-reading the table pointer on every request; with `networks`,
 * a stand-in for each VPC network binding mapping its private addresses to loopback origins.
 */
export function startGateway(state: string, table: string, networks?: NetworkAddresses): Promise<LocalGateway> {
  return startLocalGateway({
    persistTo: state,
    vars: { TABLE_REFRESH_SECONDS: "0", KEDGE_TABLE: table },
    scriptPath: inject("workerBundle"),
    ...(networks ? { networks } : {}),
  });
}

/** Ends what a test file started: the gateway, the origins, the workspace folder. */
export async function tearDown(parts: { gateway?: LocalGateway; origins?: Record<string, Origin>; ws: Workspace }): Promise<void> {
  await parts.gateway?.dispose();
  await Promise.all(Object.values(parts.origins ?? {}).map((o) => o.close()));
  parts.ws.remove();
}

/** Sends `count` requests (`concurrency` at a time) and counts which endpoint answered, or the status. */
export async function tally(
  gateway: LocalGateway,
  host: string,
  path: string,
  count: number,
  concurrency = 8,
): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  let sent = 0;
  const worker = async () => {
    while (sent < count) {
      sent++;
      // dispatchFetch hands workerd this URL as the request URL, as the Host header would over the wire.
      const response = await gateway.miniflare.dispatchFetch(`http://${host}${path}`);
      const key = response.status === 200 ? ((await response.json()) as EchoResponse).endpoint : `status ${response.status}`;
      if (response.status !== 200) await response.arrayBuffer();
      counts[key] = (counts[key] ?? 0) + 1;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return counts;
}
