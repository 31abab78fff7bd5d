/** @module Opens the KV store a command names: local state (Miniflare, in its own process) or the remote namespace (the KV REST API, with wrangler's credentials). */
import { readWranglerFacts } from "../config/wrangler-config";
import type { KvStore } from "./kv-store";
import { openLocalKv } from "./local-kv";
import { PUSH_WAIT_MS } from "./publish";
import { openRemoteKv } from "./remote-kv";
import { remotePreflight } from "../checks/remote-preflight";
import { lockState } from "./state-lock";

/** Which store, resolved from the command line. */
export interface StoreTarget {
  target: "local" | "remote";
  persistTo: string;
  wranglerConfig: string;
  /** The wrangler environment (`[env.NAME]`) whose KV namespace to use. */
  env?: string;
}

export interface StoreListeners {
  /** Progress of a long remote read or write, for a person watching. */
  progress?: (line: string) => void;
  /** Another sync holds the local state's lock: who, while this one waits. */
  waiting?: (holder: string) => void;
}

/**
 * The store the target names. A writer of local state takes the folder's lock (state-lock.ts) around each push
 * or rollback (`KvStore.writing`), not for as long as it is open: two workerd processes must not write one
 * folder's KV at once, but a long-running `sync --watch` must not keep a rollback out between its pushes.
 * Remote pushes take turns by their lease instead.
 */
export async function openStore(
  where: StoreTarget,
  abandoned: AbortSignal,
  intent: "read" | "write",
  listeners: StoreListeners = {},
): Promise<KvStore> {
  const facts = readWranglerFacts(where.wranglerConfig, where.env);
  if (where.target === "remote")
    return openRemoteKv({
      namespaceId: facts.kvNamespaceId,
      wranglerConfig: where.wranglerConfig,
      env: where.env,
      progress: listeners.progress,
    });
  if (intent === "read") return openLocalKv(where.persistTo, facts.kvNamespaceId, abandoned);
  const waiting = (holder: string) => listeners.waiting?.(`waiting for another sync or rollback writing ${where.persistTo}: ${holder}`);
  // workerd writes its SQLite files as it starts: two starting at once make one fail (SQLITE_BUSY), so a
  // writer starts under the lock too, and lets it go once workerd is ready.
  const starting = await lockState(where.persistTo, { waitMs: PUSH_WAIT_MS, waiting, signal: abandoned });
  let kv: KvStore;
  try {
    kv = await openLocalKv(where.persistTo, facts.kvNamespaceId, abandoned);
  } finally {
    starting.release();
  }
  return {
    ...kv,
    async writing(fn) {
      const lock = await lockState(where.persistTo, { waitMs: PUSH_WAIT_MS, waiting });
      try {
        return await fn();
      } finally {
        lock.release();
      }
    },
  };
}

/**
 * The KV store, opened ahead of need: local KV boots workerd in its own process, which then starts while
 * the config compiles. `release` closes it whether or not it was used (or opened); one never used is
 * abandoned at once rather than waited for (a config error is reported without waiting for workerd).
 */
export class StoreOpenedAhead {
  private readonly opening: Promise<KvStore>;
  private readonly abandon = new AbortController();
  private used = false;

  constructor(where: StoreTarget, intent: "read" | "write", listeners: StoreListeners = {}) {
    this.opening = openStore(where, this.abandon.signal, intent, listeners);
    // Its failure is reported where the store is used, not as an unhandled rejection meanwhile.
    this.opening.catch(() => undefined);
  }

  async use<T>(fn: (kv: KvStore) => Promise<T>): Promise<T> {
    this.used = true;
    return fn(await this.opening);
  }

  async release(): Promise<void> {
    if (!this.used) this.abandon.abort();
    const kv = await this.opening.catch(() => null);
    await kv?.close();
  }
}

/**
 * Runs `fn` with a store opened ahead (see StoreOpenedAhead) and released after, however `fn` ends. For the
 * remote store, the namespace id and the credentials are checked first (checks/remote-preflight.ts).
 */
export async function withStore<T>(
  where: StoreTarget,
  intent: "read" | "write",
  listeners: StoreListeners,
  fn: (store: StoreOpenedAhead) => Promise<T>,
): Promise<T> {
  if (where.target === "remote") await remotePreflight(where);
  const store = new StoreOpenedAhead(where, intent, listeners);
  try {
    return await fn(store);
  } finally {
    await store.release();
  }
}
