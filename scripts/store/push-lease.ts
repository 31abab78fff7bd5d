/**
 * @module A push's lease on its table (`table/<name>/lease` in KV), so that two pushes (two CI jobs, two
 * people) do not interleave their writes of the history and the pointer. Workers KV has no
 * compare-and-swap and the last write of a key wins, so the lease is taken as: read it; if another push
 * holds it and it has not expired, wait for it (or give up, naming that push); else write ours, read it
 * back, and hold it only if it is still ours (of two pushes that wrote at once, the later write wins and
 * the other waits). KV is eventually consistent: pushes from far-apart places within KV's propagation time
 * (up to 60 s) can still both see no lease. The push therefore also re-reads the history right before
 * writing it (publish.ts), so no entry is lost either way. A push that died midway frees the table at
 * once for pushes from its machine (its process is gone), and for others when its lease expires (LEASE_MS).
 */
import { hostname, userInfo } from "node:os";
import { KV_KEYS } from "../../src/table/kv-keys";
import type { KvStore } from "./kv-store";
import { UserError } from "../lib/user-error";
import { jsonOrNull } from "../lib/json";
import { int, obj, str } from "../../src/table/structural-schema";

/** How long a lease holds: longer than a push of the largest table takes. */
export const LEASE_MS = 10 * 60_000;

export interface Lease {
  owner: string;
  /** Who pushes, for the other push's message. */
  holder: string;
  /** The machine and process of the push: a lease whose process is gone from this machine holds nothing. */
  host: string;
  pid: number;
  startedAt: string;
  expiresAt: string;
}

export interface HeldLease {
  /** The values of `LeaseOptions.readWith`, read once the lease was ours (in the same read as its check). */
  values: (string | null)[];
  /** Gives the lease up, if it is still ours. */
  release(): Promise<void>;
}

export interface LeaseOptions {
  /** How long to wait for another push's lease before giving up (exit 2). */
  waitMs: number;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  /** Told once when this push has to wait, with who it waits for. */
  waiting?: (holder: string) => void;
  /** Keys to read with the lease's check (one read where the store reads in bulk): what the push reads first. */
  readWith?: string[];
}

/** Who this push is: user, machine and process, and the CI run when there is one. */
export function pushHolder(): string {
  const ci = process.env.GITHUB_RUN_ID
    ? `, GitHub Actions run ${process.env.GITHUB_RUN_ID}`
    : process.env.CI_JOB_ID
      ? `, CI job ${process.env.CI_JOB_ID}`
      : "";
  let user = "someone";
  try {
    user = userInfo().username;
  } catch {
    // No user name for this uid (a container): leave it out.
  }
  return `${user}@${hostname()} pid ${process.pid}${ci}`;
}

const LEASE = obj<Lease>({ owner: str(), holder: str(), host: str(), pid: int(), startedAt: str(), expiresAt: str() });

/** The lease a value holds; an unreadable one holds nothing. */
const parseLease = (text: string | null): Lease | null => (text === null ? null : jsonOrNull(text, LEASE));

const describe = (l: Lease) => `${l.holder} (since ${l.startedAt}, lease until ${l.expiresAt})`;

/** A push of this machine whose process is gone (killed midway) holds nothing, whatever its lease says. */
function died(lease: Lease): boolean {
  if (lease.host !== hostname() || typeof lease.pid !== "number") return false;
  try {
    process.kill(lease.pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ESRCH";
  }
}

/** Takes the push lease of table `name`, waiting for another push's up to `waitMs`. */
export async function takeLease(kv: KvStore, name: string, options: LeaseOptions): Promise<HeldLease> {
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const key = KV_KEYS.lease(name);
  const owner = crypto.randomUUID();
  const startedAt = new Date(now()).toISOString();
  const ours = (): Lease => ({
    owner,
    holder: pushHolder(),
    host: hostname(),
    pid: process.pid,
    startedAt,
    expiresAt: new Date(now() + LEASE_MS).toISOString(),
  });
  const deadline = now() + options.waitMs;
  const readWith = options.readWith ?? [];
  let told = false;
  let values: (string | null)[] = [];
  let expiresAt = 0;
  for (;;) {
    const held = parseLease(await kv.get(key));
    const other = held && held.owner !== owner && Date.parse(held.expiresAt) > now() && !died(held) ? held : null;
    if (!other) {
      const lease = ours();
      await kv.put(key, JSON.stringify(lease));
      const [check, ...rest] = await kv.getMany([key, ...readWith]);
      if (parseLease(check ?? null)?.owner === owner) {
        values = rest;
        expiresAt = Date.parse(lease.expiresAt);
        break;
      }
      continue; // another push wrote after us: its lease stands, ours does not
    }
    if (!told) {
      told = true;
      options.waiting?.(describe(other));
    }
    if (now() >= deadline)
      throw new UserError(
        `another push of table ${name} is under way: ${describe(other)}; waited ${Math.round(options.waitMs / 1000)} s, nothing was written`,
        "let it finish and run again (a push that died frees the table when its lease ends)",
      );
    await sleep(1000);
  }
  return {
    values,
    async release() {
      // Before it expires nobody else can have taken it: no need to read it first.
      if (now() < expiresAt - 10_000 || parseLease(await kv.get(key))?.owner === owner) await kv.delete(key);
    },
  };
}
