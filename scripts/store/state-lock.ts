/**
 * @module One writer at a time for a local state folder (`--persist-to`). Several processes may hold a workerd
 * open over the folder's SQLite files (a `sync --watch`, `kedge dev`, a reader), but two writing at once make
 * one write fail. A writer creates `kedge-push.lock` in the folder (exclusively: exactly one process can),
 * holds it for one push or rollback, and removes it; another writer waits for it, then goes on. So a
 * `sync --watch`, which holds the folder open for hours, holds its lock only while it pushes, and a
 * `kedge rollback` beside it waits at most for one push. A lock whose process is gone (killed) is stale and
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

const unusable = (dir: string, error: unknown) =>
  new UserError(
    `local KV in ${dir} did not start: cannot lock it for writing: ${(error as Error).message}`,
    "--persist-to must name a folder this user can write (default .wrangler/state); nothing was written",
  );

/** Makes sure the state folder exists and is one, before a writer starts (a UserError, exit 2, if it cannot be). */
function ensureStateFolder(persistTo: string): string {
  const dir = resolve(persistTo);
  if (existsSync(dir) && !statSync(dir).isDirectory()) throw unusable(dir, new Error(`${dir} is not a folder`));
  try {
    mkdirSync(dir, { recursive: true });
  } catch (error) {
    throw unusable(dir, error);
  }
  return dir;
}

/** Takes the folder's write lock, waiting for another writer up to `waitMs`. */
export async function lockState(persistTo: string, options: LockOptions): Promise<StateLock> {
  const dir = ensureStateFolder(persistTo);
  const path = join(dir, LOCK_FILE);
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
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw unusable(dir, error);
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
        `another sync or rollback is writing ${dir}: ${holder ? describe(holder) : "its lock file is being written"}; waited ${Math.round(options.waitMs / 1000)} s for its push, nothing was written`,
        `run again once it is done; if no kedge process runs, remove ${path}`,
      );
    await new Promise((r) => setTimeout(r, 200));
  }
}
