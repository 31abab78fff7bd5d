/**
 * @module Local KV: the same on-disk state `wrangler dev --persist-to DIR` reads (DIR/v3/kv/<namespace id>),
 * written through workerd itself (Miniflare) so the format is exactly workerd's. Miniflare runs in a host
 * process of its own (local-kv-host.mjs), started as soon as the store is opened; the store sends it
 * each operation over Node's IPC channel.
 */
import { spawn } from "node:child_process";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { miniflareModulePath } from "../lib/wrangler-package";
import { type KvStore, oneByOne } from "./kv-store";
import { StorageError, UserError } from "../lib/user-error";
import { jsonOf } from "../lib/json";
import { list, str } from "../../src/table/structural-schema";

const HOST = fileURLToPath(new URL("./local-kv-host.mjs", import.meta.url));
/** How long close() lets the host wind down (dispose workerd, exit) before killing it. */
export const CLOSE_GRACE_MS = 10_000;
/**
 * Writes in flight at once: workerd stores one value while the host sends it the next. A first push of 100k
 * routes (36 shards) wrote them in 0.64-0.70 s one by one, 0.40-0.47 s four at a time.
 */
const WRITE_LANES = 4;

type Op = "get" | "put" | "delete" | "list" | "digest";
type HostMessage = { ready: true } | { id: number; value?: string | null; error?: string };

/**
 * The host's environment: the sync's, without NODE_EXTRA_CA_CERTS. Node reads that file when it starts
 * (about 0.17 s here, on a core the compile needs), and the host only speaks to workerd on loopback.
 */
function hostEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env.NODE_EXTRA_CA_CERTS;
  return env;
}

/** `abandoned`: the caller no longer needs the store; a host still starting is stopped instead of awaited. */
export async function openLocalKv(persistTo: string, namespaceId: string, abandoned?: AbortSignal): Promise<KvStore> {
  const root = resolve(persistTo, "v3");
  const miniflare = miniflareModulePath("local state (--local)");
  const host = spawn(process.execPath, [HOST, resolve(persistTo), namespaceId, miniflare], {
    stdio: ["ignore", "pipe", "pipe", "ipc"],
    env: hostEnv(),
    // A process group of its own, shared with the workerd Miniflare starts, so that both can be ended
    // together should the host not end its workerd itself (killed, or stuck).
    detached: true,
  });
  const killGroup = () => {
    if (host.pid === undefined) return; // never started
    try {
      process.kill(-host.pid, "SIGKILL");
    } catch {
      // ESRCH: the group is already empty.
    }
  };
  abandoned?.addEventListener("abort", killGroup, { once: true });
  let output = "";
  for (const stream of [host.stdout, host.stderr]) stream?.on("data", (d: Buffer) => (output += d.toString()));
  // "exit", not "close": after the parent disconnects the channel, Node never emits "close".
  const exited = new Promise<number | null>((done) => host.on("exit", done));
  // A host that failed on its own does close, once all of its output has been read.
  const closed = new Promise<number | null>((done) => host.on("close", done));

  const pending = new Map<number, { resolve(value: string | null): void; reject(error: Error): void }>();
  let nextId = 0;
  let gone: Error | undefined;
  let closing = false;
  const ready = new Promise<boolean>((done) => {
    host.on("message", (message: HostMessage) => {
      if ("ready" in message) return done(true);
      const waiting = pending.get(message.id);
      pending.delete(message.id);
      if (message.error !== undefined) waiting?.reject(new Error(message.error));
      else waiting?.resolve(message.value ?? null);
    });
    const stopped = () => {
      done(false);
      if (gone) return;
      gone = new Error(`local KV host in ${root} stopped: ${output.trim() || "no output"}`);
      for (const waiting of pending.values()) waiting.reject(gone);
      pending.clear();
    };
    // A channel that closes before close() asked for it means the host went away on its own: whatever is
    // left of it must not linger. (When close() disconnects, the host disposes workerd itself.)
    host.on("disconnect", () => {
      if (!closing) killGroup();
      stopped();
    });
    // An exited host has ended workerd if it could; if it died without doing so, workerd is ended here.
    host.on("exit", () => {
      killGroup();
      stopped();
    });
  });
  if (!(await ready)) {
    const code = await closed;
    throw new UserError(
      `local KV in ${root} did not start (exit ${code}): ${output.trim()}`,
      "--persist-to must name a folder this user can write (default .wrangler/state); nothing was written",
    );
  }

  function call(op: Op, key: string, value?: string): Promise<string | null> {
    const id = nextId++;
    return new Promise((resolve, reject) => {
      const fail = (error: Error) => {
        pending.delete(id);
        reject(
          new StorageError(
            `local KV ${op} ${key} failed in ${root}: ${error.message}`,
            "check that the state folder is writable and that no other program writes it; the pointer was not moved past what was written",
          ),
        );
      };
      if (gone) return fail(gone);
      pending.set(id, { resolve, reject: fail });
      // A send fails (EPIPE) when the host has just died; its exit, reported next, says more.
      host.send({ id, op, key, value }, (error) => error && void exited.then(() => fail(gone ?? error)));
    });
  }

  const get = (key: string) => call("get", key);
  const put = async (key: string, value: string) => {
    await call("put", key, value);
  };
  const remove = async (key: string) => {
    await call("delete", key);
  };
  return {
    description: `local state ${root} (namespace ${namespaceId})`,
    get,
    put,
    delete: remove,
    ...oneByOne({ get, put, delete: remove }),
    async putMany(entries) {
      // Each lane takes the next entry when its write is done: a value made as it is taken is made while the
      // other lanes' values are written.
      const next = entries[Symbol.iterator]();
      let failed = false;
      const lane = async () => {
        // A failed write stops every lane: no value is made or started once the push is known to fail.
        while (!failed) {
          const entry = next.next();
          if (entry.done) return;
          await put(...entry.value).catch((error: unknown) => {
            failed = true;
            throw error;
          });
        }
      };
      // Settled, not Promise.all: a failed write returns once the others in flight have ended, not while they run.
      const lanes = await Promise.allSettled(Array.from({ length: WRITE_LANES }, lane));
      const failure = lanes.find((lane) => lane.status === "rejected");
      if (failure) throw failure.reason;
    },
    digestMany: (keys) => Promise.all(keys.map((key) => call("digest", key))),
    async list(prefix) {
      return jsonOf((await call("list", prefix)) ?? "[]", list(str()), "the local KV host's key list");
    },
    async close() {
      closing = true;
      if (host.connected) host.disconnect();
      // A host that does not wind down within CLOSE_GRACE_MS is killed, with its workerd.
      const stuck = setTimeout(killGroup, CLOSE_GRACE_MS);
      await exited;
      clearTimeout(stuck);
    },
  };
}
