/**
 * @module Local KV: the same on-disk state `wrangler dev --persist-to DIR` reads (DIR/v3/kv/<namespace id>),
 * written through workerd itself (Miniflare) so the format is exactly workerd's. Miniflare runs in a host
 * process of its own (local-kv-host.mjs), started as soon as the store is opened; the store speaks to it
 * over loopback HTTP with the token the host printed.
 */
import { spawn } from "node:child_process";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { createInterface } from "node:readline";
import type { KvStore } from "./kv-store";
import { UserError } from "./user-error";

const HOST = fileURLToPath(new URL("./local-kv-host.mjs", import.meta.url));
const CLOSE_GRACE_MS = 10_000;

/** `abandoned`: the caller no longer needs the store; a host still starting is stopped instead of awaited. */
export async function openLocalKv(persistTo: string, namespaceId: string, abandoned?: AbortSignal): Promise<KvStore> {
  const root = resolve(persistTo, "v3");
  const host = spawn(process.execPath, [HOST, resolve(persistTo), namespaceId], {
    stdio: ["pipe", "pipe", "pipe"],
  });
  abandoned?.addEventListener("abort", () => host.kill("SIGTERM"), { once: true });
  let stderr = "";
  host.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((done) => host.on("close", done));
  const firstLine = await new Promise<string | undefined>((done) => {
    const lines = createInterface({ input: host.stdout });
    lines.once("line", (line) => {
      done(line); // before close(), which emits "close" at once
      lines.close();
    });
    lines.once("close", () => done(undefined));
  });
  if (firstLine === undefined) {
    const code = await exited;
    throw new UserError(
      `local KV in ${root} did not start (exit ${code}): ${stderr.trim()}`,
      "--persist-to must name a folder this user can write (default .wrangler/state); nothing was written",
    );
  }
  const { url, token } = JSON.parse(firstLine) as { url: string; token: string };

  async function call(method: string, key: string, body?: string): Promise<Response> {
    const response = await fetch(`${url}?key=${encodeURIComponent(key)}`, {
      method,
      body,
      headers: { authorization: `Bearer ${token}` },
    });
    if (!response.ok && response.status !== 404) {
      throw new Error(`local KV ${method} ${key}: ${response.status} ${await response.text()}`);
    }
    return response;
  }

  return {
    description: `local state ${root} (namespace ${namespaceId})`,
    async get(key) {
      const response = await call("GET", key);
      return response.status === 404 ? null : response.text();
    },
    async put(key, value) {
      await (await call("PUT", key, value)).body?.cancel();
    },
    async delete(key) {
      await (await call("DELETE", key)).body?.cancel();
    },
    async close() {
      host.stdin.end();
      // A host that does not wind down within CLOSE_GRACE_MS is killed; its workerd follows it.
      const stuck = setTimeout(() => host.kill("SIGKILL"), CLOSE_GRACE_MS);
      await exited;
      clearTimeout(stuck);
    },
  };
}
