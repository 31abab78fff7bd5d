/**
 * @module `kedge history`: the kept versions of the table, newest first, each with what it changed from the version
 * served before it; the served one marked, and a rollback by hand said.
 */
import { loadEdgeSettings } from "../../config/load-config";
import { withStore } from "../../store/open-store";
import type { RollbackMarker, TableHistoryEntry } from "../../../src/table/route-table";
import { readHistory, readPointerWithCanary } from "../../store/publish";
import { canaryLine, readCanaryRecords } from "../../store/canary-store";
import { type CanaryPointer, type CanaryRecord, EDGE_ANALYSIS } from "../../../src/table/canary";
import { count } from "../../report/report";
import { command, EXIT } from "../command";
import { OUTPUT_FLAGS, type OutputOptions, storeTarget, TARGET_FLAGS, type TargetOptions } from "../flags";

export interface HistoryData {
  table: string;
  served?: string;
  /** Set while the served version is a rollback by hand (until the next push). */
  rolledBack?: RollbackMarker;
  /** The canary in progress, beside the served version. */
  canary?: CanaryPointer;
  /** The records of the versions pushed as canaries, by canary id: how each ended, with its figures. */
  canaries?: Record<string, CanaryRecord | null>;
  history: TableHistoryEntry[];
  historyProblem?: string;
}

/**
 * "* 3f9c2a7e1b04d5c6a8e2  2026-11-27T10:00:00Z  3 rules, 4 backends  cluster eu Draining" (`~` marks the canary in
 * progress), and under a version pushed as a canary, how that canary stands or ended.
 */
function entryLines(
  e: TableHistoryEntry,
  served: string | undefined,
  canary: string | undefined,
  records: Map<string, CanaryRecord | null>,
): string[] {
  const counts = `${count(e.rules, "rule")}, ${count(e.backends, "backend")}${e.shards ? `, ${e.shards} shards` : ""}`;
  const mark = e.version === served ? "*" : e.version === canary ? "~" : " ";
  // Entries written before summaries were kept have none.
  const line = `${mark} ${e.version}  ${e.writtenAt || "(time unknown)"}  ${counts}${e.summary ? `  ${e.summary}` : ""}`;
  return e.canary ? [line, `      ${canaryLine(e.canary.percent, records.get(e.canary.id) ?? null)}`] : [line];
}

/** The line that says the served version is a rollback by hand, or serves again because the edge reverted a canary. */
export const rollbackLine = (served: string, mark: RollbackMarker): string =>
  mark.by === EDGE_ANALYSIS
    ? `${served} serves again: the canary ${mark.from} was reverted by the edge (canary analysis) at ${mark.at}; \`kedge sync --watch\` does not push it again until the clusters or the config change; the next push ends the mark`
    : `${served} was rolled back to by hand (from ${mark.from}, ${mark.at}, by ${mark.by}): \`kedge sync --watch\` does not push over it until the clusters or the config change; the next push ends it`;

export const historyCommand = command<TargetOptions & OutputOptions>({
  name: "history",
  summary: "the kept versions, with time, rules, backends and what each changed; the served one marked",
  description:
    "Lists the versions of the table kept in KV, newest first, the one the edge serves marked with * (and a canary in progress with ~), each with a one-line summary of what it changed from the version served before it (cluster state, hosts, rules, weights, endpoints). Says when the served version is a rollback by hand, and under each version pushed as a canary how it ended (promoted or reverted, by the edge or by hand, with both versions' figures) or where its analysis stands. `kedge rollback VERSION` (or a unique prefix of it) moves the edge to any of them; `kedge diff VERSION` shows one in full.",
  flags: [...TARGET_FLAGS, ...OUTPUT_FLAGS],
  exitCodes: { 0: "listed (also when the table was never written)", 2: "the store cannot be used" },
  async run(options, _args, io) {
    const name = loadEdgeSettings(options.config).name;
    const { read, pointer, records } = await withStore(storeTarget(options), "read", { progress: io.progress }, (store) =>
      store.use(async (kv) => {
        const pointer = (await readPointerWithCanary(kv, name))?.pointer ?? null;
        const read = await readHistory(kv, name, { pointer });
        const ids = read.entries.flatMap((e) => (e.canary ? [e.canary.id] : []));
        return { read, pointer, records: await readCanaryRecords(kv, name, ids) };
      }),
    );
    const { entries, problem } = read;
    const served = pointer?.version;
    if (problem) io.note(`! ${problem}`);
    const data: HistoryData = {
      table: name,
      served,
      ...(pointer?.rolledBack ? { rolledBack: pointer.rolledBack } : {}),
      ...(pointer?.canary ? { canary: pointer.canary } : {}),
      ...(records.size > 0 ? { canaries: Object.fromEntries(records) } : {}),
      history: entries,
      ...(problem ? { historyProblem: problem } : {}),
    };
    const text =
      entries.length === 0
        ? [`table ${name} was never written here`]
        : [
            `table ${name} (${entries.length} kept versions; * = served${pointer?.canary ? ", ~ = canary in progress" : ""})`,
            ...entries.flatMap((e) => entryLines(e, served, pointer?.canary?.version, records)),
            ...(pointer?.rolledBack ? ["", rollbackLine(pointer.version, pointer.rolledBack)] : []),
          ];
    return { code: EXIT.OK, data, text };
  },
});
