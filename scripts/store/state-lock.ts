/**
 * @module One writer at a time for a local state folder (`--persist-to`). Two syncs writing the same
 * folder would each run a workerd over the same SQLite files, and one write fails. A writer creates
 * `kedge-push.lock` in the folder (exclusively: exactly one process can), holds it until it is done, and
 * removes it; another writer waits for it, then goes on. A lock whose process is gone (killed) is stale and
 * taken over. Readers (--dry-run, history, explain, status) need no lock.
 */
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, statSync, unlinkSync, writeSync } from "node:fs";
import { hostname } from "node:os";
import { join, resolve } from "node:path";
import { UserError } from "../lib/user-error";
import { jsonOrNull } from "../lib/json";
import { int, obj, str } from "../../src/table/structural-schema";

export const LOCK_FILE = "kedge-push.lock";

interface Holder {
  pid: number;
  host: string;
  command: string;
  startedAt: string;
}
const HOLDER = obj<Holder>({ pid: int(), host: str(), command: str(), startedAt: str() });

export interface StateLock {
  release(): void;
}

export interface LockOptions {
  /** How long to wait for another writer before giving up (exit 2). */
  waitMs: number;
  /** Told once when this writer has to wait, with who it waits for. */
  waiting?: (holder: string) => void;
  signal?: AbortSignal;
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
};

function readHolder(path: string): Holder | null {
  try {
    return jsonOrNull(readFileSync(path, "utf8"), HOLDER);
  } catch {
    return null; // gone meanwhile, or being written
  }
}

const describe = (h: Holder) => `pid ${h.pid} on ${h.host} (${h.command}), since ${h.startedAt}`;

/** Takes the folder's write lock, waiting for another writer up to `waitMs`. */
export async function lockState(persistTo: string, options: LockOptions): Promise<StateLock> {
  const dir = resolve(persistTo);
  const path = join(dir, LOCK_FILE);
  const unusable = (error: unknown) =>
    new UserError(
      `local KV in ${dir} did not start: cannot lock it for writing: ${(error as Error).message}`,
      "--persist-to must name a folder this user can write (default .wrangler/state); nothing was written",
    );
  if (existsSync(dir) && !statSync(dir).isDirectory()) throw unusable(new Error(`${dir} is not a folder`));
  try {
    mkdirSync(dir, { recursive: true });
  } catch (error) {
    throw unusable(error);
  }
  const me: Holder = { pid: process.pid, host: hostname(), command: process.argv.slice(1).join(" "), startedAt: new Date().toISOString() };
  const deadline = Date.now() + options.waitMs;
  let told = false;
  for (;;) {
    options.signal?.throwIfAborted();
    try {
      const fd = openSync(path, "wx", 0o600);
      writeSync(fd, JSON.stringify(me));
      closeSync(fd);
      return {
        release() {
          if (readHolder(path)?.pid === me.pid) unlinkSync(path);
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw unusable(error);
    }
    const holder = readHolder(path);
    // A writer that died without removing its lock (killed) holds nothing.
    if (holder && holder.host === me.host && !alive(holder.pid)) {
      try {
        unlinkSync(path);
      } catch {
        // Another waiter took it over first.
      }
      continue;
    }
    if (holder && !told) {
      told = true;
      options.waiting?.(describe(holder));
    }
    if (Date.now() >= deadline)
      throw new UserError(
        `another sync is writing ${dir}: ${holder ? describe(holder) : "its lock file is being written"}; waited ${Math.round(options.waitMs / 1000)} s, nothing was written`,
        `let it finish and run again; if no sync runs, remove ${path}`,
      );
    await new Promise((r) => setTimeout(r, 200));
  }
}
