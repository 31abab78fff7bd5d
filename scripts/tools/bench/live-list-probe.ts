/**
 * @module Child process of the live-list benchmark: `sync --watch` (the watch loop, in this process, pushing to a
 * store in memory) of one cluster the parent serves from a stand-in API server. One JSON line per cycle record on
 * stdout, with the time since the start and peak memory so far, for the parent to time the changes it makes.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { StoreOpenedAhead } from "../../store/open-store";
import { WatchLoop } from "../../watch/watch-loop";
import { MemoryKv } from "../../../test/support/memory-kv";

const [configDir] = process.argv.slice(2);
const started = performance.now();
const kv = new MemoryKv();
const store = { use: <T>(fn: (kv: MemoryKv) => Promise<T>) => fn(kv) } as unknown as StoreOpenedAhead;
const state = join(configDir!, "state");
mkdirSync(state, { recursive: true });
const loop = new WatchLoop(
  {
    configDir: configDir!,
    where: { target: "local", persistTo: state, wranglerConfig: "wrangler.toml" },
    checks: { strict: false, shardBytes: 1 << 20 },
    force: false,
    // The CLI's defaults (`kedge sync --watch`).
    debounceMs: 1000,
    staleAfterMs: 600_000,
    writeStatus: true,
  },
  store,
  {
    note: () => undefined,
    record: (r) =>
      process.stdout.write(
        `${JSON.stringify({ ...r, atMs: performance.now() - started, maxRssMB: process.resourceUsage().maxRSS / 1024 })}\n`,
      ),
  },
);
process.on("SIGTERM", () => void loop.stop());
await loop.run([]);
