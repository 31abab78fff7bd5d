/**
 * @module Remote KV through wrangler's own `kv key` commands, so the user's `wrangler login` (or
 * CLOUDFLARE_API_TOKEN) is what authorises the push. Values go through temporary files, never argv.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { KvStore } from "./kv-store";
import { UserError } from "./user-error";

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function wrangler(args: string[]): Promise<Run> {
  return new Promise((resolveRun, reject) => {
    const child = spawn("npx", ["wrangler", ...args], {
      env: { ...process.env, WRANGLER_SEND_METRICS: "false" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolveRun({ code: code ?? 1, stdout, stderr }));
  });
}

export function openRemoteKv(namespaceId: string, wranglerConfig: string): KvStore {
  const scratch = mkdtempSync(join(tmpdir(), "kedge-sync-"));
  const common = ["--namespace-id", namespaceId, "--remote", "--config", wranglerConfig];
  const fail = (what: string, run: Run): never => {
    throw new UserError(
      `wrangler ${what} failed (exit ${run.code}): ${(run.stderr || run.stdout).trim().split("\n").slice(-3).join(" ")}`,
      "check `npx wrangler whoami` and the kv_namespaces id in wrangler.toml",
    );
  };
  return {
    description: `remote KV namespace ${namespaceId}`,
    async get(key) {
      const run = await wrangler(["kv", "key", "get", key, "--text", ...common]);
      if (run.code !== 0) {
        if (/not found/i.test(run.stderr + run.stdout)) return null;
        return fail(`kv key get ${key}`, run);
      }
      return /^Value not found/i.test(run.stdout.trim()) ? null : run.stdout;
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
