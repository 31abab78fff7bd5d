/** @module `kedge history`: the kept versions of the table, the served one marked. */
import { loadConfig } from "../../config/load-config";
import { withStore } from "../../store/open-store";
import type { TableHistoryEntry } from "../../../src/table/route-table";
import { readHistory, readPointer } from "../../store/publish";
import { count } from "../../report/report";
import { command, EXIT } from "../command";
import { OUTPUT_FLAGS, type OutputOptions, storeTarget, TARGET_FLAGS, type TargetOptions } from "../flags";

export interface HistoryData {
  table: string;
  served?: string;
  history: TableHistoryEntry[];
  historyProblem?: string;
}

export const historyCommand = command<TargetOptions & OutputOptions>({
  name: "history",
  summary: "the kept versions, with time, rules, backends and shards; the served one marked",
  description:
    "Lists the versions of the table kept in KV, newest first, the one the edge serves marked with *. `kedge rollback VERSION` moves the edge to any of them.",
  flags: [...TARGET_FLAGS, ...OUTPUT_FLAGS],
  exitCodes: { 0: "listed (also when the table was never written)", 2: "the store cannot be used" },
  async run(options, _args, io) {
    const name = loadConfig(options.config).edge.name;
    const { read, served } = await withStore(storeTarget(options), "read", { progress: io.progress }, (store) =>
      store.use(async (kv) => {
        const pointer = await readPointer(kv, name);
        return { read: await readHistory(kv, name, { pointer }), served: pointer?.version };
      }),
    );
    const { entries, problem } = read;
    if (problem) io.note(`! ${problem}`);
    const data: HistoryData = { table: name, served, history: entries, ...(problem ? { historyProblem: problem } : {}) };
    const text =
      entries.length === 0
        ? [`table ${name} was never written here`]
        : [
            `table ${name} (${entries.length} kept versions; * = served)`,
            ...entries.map(
              (e) =>
                `${e.version === served ? "*" : " "} ${e.version}  ${e.writtenAt || "(time unknown)"}  ${count(e.rules, "rule")}, ${count(e.backends, "backend")}${e.shards ? `, ${e.shards} shards` : ""}`,
            ),
          ];
    return { code: EXIT.OK, data, text };
  },
});
