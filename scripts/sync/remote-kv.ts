/**
 * @module Remote KV through wrangler's own `kv key` commands, so the user's `wrangler login` (or
 * CLOUDFLARE_API_TOKEN) is what authorises the push. Values go through temporary files, never argv, and
 * come back as the exact bytes stored.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { KvStore } from "./kv-store";
import { UserError } from "./user-error";

/** The project's wrangler, run with this Node (what `npx wrangler` finds, without npx's start-up per call). */
const WRANGLER = createRequire(import.meta.url).resolve("wrangler/bin/wrangler.js");

/** What local mode prints, with exit 0, for a key that is not there. */
const LOCAL_NOT_FOUND = "Value not found\n";

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function wrangler(args: string[]): Promise<Run> {
  return new Promise((resolveRun, reject) => {
    const child = spawn(process.execPath, [WRANGLER, ...args], {
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
export function openRemoteKv(namespaceId: string, wranglerConfig: string, target: string[] = ["--remote"]): KvStore {
  const scratch = mkdtempSync(join(tmpdir(), "kedge-sync-"));
  const common = ["--namespace-id", namespaceId, ...target, "--config", wranglerConfig];
  const fail = (what: string, run: Run): never => {
    throw new UserError(
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
    async close() {
      rmSync(scratch, { recursive: true, force: true });
    },
  };
}
