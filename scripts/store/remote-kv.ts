/**
 * @module Remote KV through wrangler's own `kv key` commands, so the user's `wrangler login` (or
 * CLOUDFLARE_API_TOKEN) is what authorises the push. Values go through temporary files, never argv, and
 * come back as the exact bytes stored.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { resolvePeer } from "../lib/package-files";
import type { KvStore } from "./kv-store";
import { StorageError } from "../lib/user-error";
import { jsonOf } from "../lib/json";
import { any, list, map, obj, str } from "../../src/table/structural-schema";

/** `wrangler kv bulk get` prints `{ key: value }` (the API) or `{ key: { value } }` (local mode). */
const BULK_GET = map(any());
/** `wrangler kv key list` prints the keys with their metadata. */
const KEY_LIST = list(obj<{ name: string }>({ name: str() }, { open: true }));

/** The project's wrangler, run with this Node (what `npx wrangler` finds, without npx's start-up per call). */
let wranglerBin: string | undefined;
const wranglerPath = () => (wranglerBin ??= resolvePeer("wrangler/bin/wrangler.js", "kedge with --remote"));

/** A bulk write's batch: well under the API's 100 MB and 10,000 pairs per request. */
const PUT_BATCH_BYTES = 40 * 1024 * 1024;
/** A bulk read's batch: the API returns at most 100 keys per request; values of 1 MiB shards stay small enough. */
export const GET_BATCH_KEYS = 10;

/** A bulk delete's batch: the API takes at most 10,000 keys per request. */
const DELETE_BATCH_KEYS = 10_000;

/** Splits entries into batches of at most `maxBytes` of values (an entry larger than that is a batch alone). */
function batchesBySize(entries: [string, string][], maxBytes: number): [string, string][][] {
  const batches: [string, string][][] = [];
  let size = 0;
  for (const entry of entries) {
    const bytes = Buffer.byteLength(entry[1]);
    if (batches.length === 0 || size + bytes > maxBytes) {
      batches.push([]);
      size = 0;
    }
    batches.at(-1)!.push(entry);
    size += bytes;
  }
  return batches;
}

/**
 * The values of `wrangler kv bulk get`'s output, in the order of `keys`: local mode prints
 * `{ key: { value } }`, the API's answer is `{ key: value }`; wrangler appends "Success!".
 */
export function bulkGetValues(stdout: string, keys: string[]): (string | null)[] {
  const json = stdout.slice(stdout.indexOf("{"), stdout.lastIndexOf("}") + 1);
  const values = jsonOf(json, BULK_GET, "wrangler kv bulk get");
  return keys.map((key) => {
    const v = values[key];
    const value = typeof v === "object" && v !== null && "value" in v ? v.value : v;
    return typeof value === "string" ? value : null;
  });
}

/** What local mode prints, with exit 0, for a key that is not there. */
const LOCAL_NOT_FOUND = "Value not found\n";

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function wrangler(args: string[]): Promise<Run> {
  return new Promise((resolveRun, reject) => {
    const child = spawn(process.execPath, [wranglerPath(), ...args], {
      env: { ...process.env, WRANGLER_SEND_METRICS: "false" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    // Decoded once at the end: a chunk boundary may split a multi-byte character.
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    child.stdout.on("data", (d: Buffer) => stdout.push(d));
    child.stderr.on("data", (d: Buffer) => stderr.push(d));
    child.on("error", reject);
    child.on("close", (code) =>
      resolveRun({ code: code ?? 1, stdout: Buffer.concat(stdout).toString("utf8"), stderr: Buffer.concat(stderr).toString("utf8") }),
    );
  });
}

/** Colour codes in wrangler's output (it colours even when piped). */
const ANSI_COLOUR = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, "g");

/**
 * What wrangler said went wrong: its `✘ [ERROR]` lines, else its last lines. Its closing notice about
 * the log file, npm's warnings and blank lines are dropped; they would otherwise be all a user sees.
 */
function wranglerProblem(run: Run): string {
  const lines = `${run.stderr}\n${run.stdout}`
    .replace(ANSI_COLOUR, "")
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("🪵") && !line.startsWith("npm warn"));
  const errors = lines.filter((line) => line.includes("[ERROR]")).map((line) => line.replace(/^.*?\[ERROR\]\s*/, ""));
  return (errors.length > 0 ? errors : lines.slice(-3)).join(" ");
}

/**
 * `target` is `--remote` for a push; tests give `--local --persist-to DIR`, which runs the same commands
 * against local state, offline.
 */
export function openRemoteKv(
  namespaceId: string,
  wranglerConfig: string,
  target: string[] = ["--remote"],
  progress?: (line: string) => void,
): KvStore {
  const scratch = mkdtempSync(join(tmpdir(), "kedge-sync-"));
  const common = ["--namespace-id", namespaceId, ...target, "--config", wranglerConfig];
  const fail = (what: string, run: Run): never => {
    throw new StorageError(
      `wrangler ${what} failed (exit ${run.code}): ${wranglerProblem(run)}`,
      "check `npx wrangler whoami` and the kv_namespaces id in wrangler.toml",
    );
  };
  return {
    description: target.includes("--remote") ? `remote KV namespace ${namespaceId}` : `KV namespace ${namespaceId} (${target.join(" ")})`,
    async get(key) {
      // Without --text wrangler writes the value's bytes as they are; --text adds a newline.
      const run = await wrangler(["kv", "key", "get", key, ...common]);
      if (run.code !== 0) {
        if (/not found/i.test(run.stderr + run.stdout)) return null;
        return fail(`kv key get ${key}`, run);
      }
      return run.stdout === LOCAL_NOT_FOUND ? null : run.stdout;
    },
    async put(key, value) {
      const file = join(scratch, "value.json");
      writeFileSync(file, value);
      const run = await wrangler(["kv", "key", "put", key, "--path", file, ...common]);
      if (run.code !== 0) fail(`kv key put ${key}`, run);
    },
    async delete(key) {
      const run = await wrangler(["kv", "key", "delete", key, ...common]);
      if (run.code !== 0) fail(`kv key delete ${key}`, run);
    },
    // One wrangler process per batch instead of one per value (each costs about 3 s).
    async putMany(taken) {
      // Every value is made before the first batch: batches are cut by size, and progress counts them all.
      const entries = [...taken];
      const batches = batchesBySize(entries, PUT_BATCH_BYTES);
      let done = 0;
      for (const [i, batch] of batches.entries()) {
        const file = join(scratch, `bulk-put-${i}.json`);
        writeFileSync(file, JSON.stringify(batch.map(([key, value]) => ({ key, value }))));
        const run = await wrangler(["kv", "bulk", "put", file, ...common]);
        if (run.code !== 0) fail(`kv bulk put (${batch.length} values)`, run);
        done += batch.length;
        progress?.(`  written ${done} of ${entries.length} values`);
      }
    },
    // One process per batch: pruning a sharded version one key at a time would cost seconds per shard.
    async deleteMany(keys) {
      for (let at = 0; at < keys.length; at += DELETE_BATCH_KEYS) {
        const batch = keys.slice(at, at + DELETE_BATCH_KEYS);
        const file = join(scratch, "bulk-delete.json");
        writeFileSync(file, JSON.stringify(batch));
        const run = await wrangler(["kv", "bulk", "delete", file, "--force", ...common]);
        if (run.code !== 0) fail(`kv bulk delete (${batch.length} keys)`, run);
      }
    },
    async getMany(keys) {
      const values: (string | null)[] = [];
      for (let at = 0; at < keys.length; at += GET_BATCH_KEYS) {
        const batch = keys.slice(at, at + GET_BATCH_KEYS);
        const file = join(scratch, "bulk-get.json");
        writeFileSync(file, JSON.stringify(batch));
        const run = await wrangler(["kv", "bulk", "get", file, ...common]);
        if (run.code !== 0) fail(`kv bulk get (${batch.length} keys)`, run);
        values.push(...bulkGetValues(run.stdout, batch));
        progress?.(`  read ${values.length} of ${keys.length} values`);
      }
      return values;
    },
    async list(prefix) {
      const run = await wrangler(["kv", "key", "list", "--prefix", prefix, ...common]);
      if (run.code !== 0) fail(`kv key list --prefix ${prefix}`, run);
      const json = run.stdout.slice(run.stdout.indexOf("["), run.stdout.lastIndexOf("]") + 1);
      const keys = jsonOf(json || "[]", KEY_LIST, "wrangler kv key list");
      return keys.map((k) => k.name).sort();
    },
    async close() {
      rmSync(scratch, { recursive: true, force: true });
    },
  };
}
