/**
 * @module What a running `kedge dev` does when the table it serves changes (a `kedge sync` from another terminal,
 * a rollback): it reads the pointer every second through the gateway's own KV binding and, for a new version,
 * starts a local origin for each loopback endpoint the earlier versions did not name, so the edge answers it
 * rather than 503. It says what it started, and what it could not (a port taken by something that does not
 * answer), in one line each. Endpoints behind a VPC network stand-in are fixed when the stand-in starts: a new
 * private address is said, with the restart that reaches it.
 */
import type { RouteTable } from "../../src/table/route-table";
import type { KvStore } from "../store/kv-store";
import { readPointer } from "../store/publish";
import { readTable } from "../store/read-table";
import { loopbackKeysOf, startLoopbackOrigins } from "./dev-origins";
import { networkEndpoints } from "./network-stand-in";
import type { Origin } from "./origin-server";

/** What `kedge dev` reads the table through: the gateway's KV binding (Miniflare's `getKVNamespace`). */
export interface KvReader {
  get(key: string, type: "text"): Promise<string | null>;
}

/** How often the pointer is read: a sync from another terminal is served within the Worker's refresh (5 s) anyway. */
const FOLLOW_MS = 1000;

/** The binding as the read side of a KvStore, so the table is read (and joined from shards) as the CLI reads it. */
function readOnly(kv: KvReader): KvStore {
  const refused = () => Promise.reject(new Error("kedge dev only reads the table"));
  const get = (key: string) => kv.get(key, "text");
  return {
    description: "the local gateway's KV",
    get,
    getMany: (keys) => Promise.all(keys.map(get)),
    put: refused,
    putMany: refused,
    delete: refused,
    deleteMany: refused,
    list: refused,
    close: () => Promise.resolve(),
  };
}

export interface TableFollower {
  stop(): Promise<void>;
}

/**
 * Follows the table `name` from `served` (the version dev synced): each new version's loopback endpoints get
 * their origins, added to `origins` (closed with the others when dev stops).
 */
export function followTable(
  binding: KvReader,
  name: string,
  first: RouteTable,
  origins: Origin[],
  note: (line: string) => void,
): TableFollower {
  const kv = readOnly(binding);
  const known = loopbackKeysOf(first);
  const private_ = new Set(networkEndpoints(first).keys());
  let version = first.version;
  let stopped = false;
  let running: Promise<void> = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;

  async function check(): Promise<void> {
    const pointer = await readPointer(kv, name);
    if (!pointer || pointer.version === version) return;
    const table = await readTable(kv, name, pointer.version);
    if (!table) return; // a push still writing its parts: the next read sees it whole
    version = table.version;
    const started = await startLoopbackOrigins(table, known, true);
    for (const key of loopbackKeysOf(table)) known.add(key);
    origins.push(...started.origins);
    if (started.origins.length > 0)
      note(
        `table ${name}@${version}: started ${started.origins.length} local origin${started.origins.length === 1 ? "" : "s"} for its new loopback endpoints: ${started.origins.map((o) => `${o.identity.cluster}:${o.port}`).join(" ")}`,
      );
    for (const l of started.existing)
      note(`table ${name}@${version}: ${l.address}:${l.port} already has a listener: kedge sends ${l.endpoint}'s requests to it`);
    for (const refused of started.refused) note(`! table ${name}@${version}: ${refused.message} (fix: ${refused.hint})`);
    const added = [...networkEndpoints(table)].filter(([key]) => !private_.has(key));
    for (const [key] of added) private_.add(key);
    if (added.length > 0)
      note(
        `! table ${name}@${version}: new private addresses behind VPC network stand-ins (${added.map(([, e]) => `${e.address} through ${e.network}`).join(", ")}) get their origins when kedge dev starts again`,
      );
  }

  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      // A read that fails (the gateway stopping) is tried again on the next tick; dev says nothing of it.
      running = check()
        .catch(() => undefined)
        .finally(schedule);
    }, FOLLOW_MS);
  };
  schedule();
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
