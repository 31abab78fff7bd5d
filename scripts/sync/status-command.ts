/**
 * @module `kedge status`: what the edge serves, from KV (local or remote): the table version and when it
 * was written, and per cluster its endpoints, ready or not, and the ones the active health checks call
 * unhealthy (the health record the Worker writes, and when).
 */
import { KV_KEYS } from "../../src/table/kv-keys";
import { parseHealthRecord } from "../../src/table/parse-route-table";
import { parseSyncArgs } from "./args";
import { loadConfig } from "./load-config";
import { readCurrentTable, readHistory, readPointer } from "./publish";
import { EXIT, openStore, type Output } from "./run-sync";
import { count } from "./report";

interface ClusterStatus {
  cluster: string;
  endpoints: number;
  ready: number;
  unhealthy: string[];
}

export async function statusCommand(argv: string[], io: Output): Promise<number> {
  const options = parseSyncArgs(argv);
  const name = loadConfig(options.configDir).edge.name;
  const abandon = new AbortController();
  const kv = await openStore(options, abandon.signal, "read");
  try {
    const pointer = await readPointer(kv, name);
    if (!pointer) {
      io.out(options.json ? JSON.stringify({ table: name, served: null }) : `table ${name} was never written to ${kv.description}`);
      return EXIT.OK;
    }
    const [table, { entries: history, problem: historyProblem }, healthText] = await Promise.all([
      readCurrentTable(kv, name),
      readHistory(kv, name),
      kv.get(KV_KEYS.health(name)),
    ]);
    const health = parseHealthRecord(healthText === null ? null : JSON.parse(healthText));
    const unhealthy = new Set(health?.unhealthy ?? []);
    const byCluster = new Map<string, ClusterStatus>();
    const seen = new Set<string>();
    for (const backend of Object.values(table?.backends ?? {}))
      for (const e of backend.endpoints) {
        if (seen.has(e.id)) continue;
        seen.add(e.id);
        const c = byCluster.get(e.cluster) ?? { cluster: e.cluster, endpoints: 0, ready: 0, unhealthy: [] };
        c.endpoints++;
        if (e.ready && !e.terminating) c.ready++;
        if (unhealthy.has(e.id)) c.unhealthy.push(e.id);
        byCluster.set(e.cluster, c);
      }
    const clusters = [...byCluster.values()].sort((a, b) => a.cluster.localeCompare(b.cluster));
    const written = history.find((h) => h.version === pointer.version)?.writtenAt ?? pointer.updatedAt;
    if (options.json) {
      io.out(
        JSON.stringify(
          {
            table: name,
            served: pointer.version,
            since: pointer.updatedAt,
            written,
            health: health ? { updatedAt: health.updatedAt } : null,
            clusters,
            ...(historyProblem ? { historyProblem } : {}),
          },
          null,
          2,
        ),
      );
      return EXIT.OK;
    }
    io.out(`table ${name}@${pointer.version} in ${kv.description}, served since ${pointer.updatedAt} (written ${written})`);
    io.out(
      `  ${count(table?.rules.length ?? 0, "rule")}, ${count(Object.keys(table?.backends ?? {}).length, "backend")}; ${history.length} kept versions`,
    );
    if (historyProblem) io.out(`  ! ${historyProblem}`);
    io.out(
      health
        ? `  active health: record of ${health.updatedAt}`
        : "  active health: no record (no Cron Trigger run yet, or nothing ever unhealthy)",
    );
    for (const c of clusters) {
      const bad = c.unhealthy.length > 0 ? `, unhealthy: ${c.unhealthy.join(", ")}` : "";
      io.out(`  cluster ${c.cluster}: ${c.ready} of ${count(c.endpoints, "endpoint")} ready${bad}`);
    }
    return EXIT.OK;
  } finally {
    await kv.close();
  }
}
