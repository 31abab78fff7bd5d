import { compileRouteTable } from "../../../src/compile/compile-route-table";
import { planStorage } from "../../../src/table/shard-table";
import { loadConfig } from "../../config/load-config";
const gc = (globalThis as { gc?: () => void }).gc!;
const mem = (label: string) => {
  gc();
  const m = process.memoryUsage();
  console.log(
    label.padEnd(12),
    "heapUsed",
    (m.heapUsed / 2 ** 20).toFixed(0),
    "rss",
    (m.rss / 2 ** 20).toFixed(0),
    "maxRSS",
    (process.resourceUsage().maxRSS / 1024).toFixed(0),
  );
};
mem("start");
const t0 = performance.now();
const loaded = loadConfig(process.argv[2]!);
mem("loaded");
const t1 = performance.now();
const result = await compileRouteTable(loaded.edge, loaded.manifests);
mem("compiled");
const t2 = performance.now();
const plan = planStorage(result.table, {}, result.text);
mem("planned");
const t3 = performance.now();
console.log(
  "load",
  (t1 - t0).toFixed(0),
  "compile",
  (t2 - t1).toFixed(0),
  "plan",
  (t3 - t2).toFixed(0),
  plan.ok ? plan.plan.shards.length : plan,
);
