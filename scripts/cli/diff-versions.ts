/**
 * @module `kedge diff VERSION [VERSION]`: two kept versions compared, nothing compiled. With one version, what it
 * changed from the version served before it (the change its history line summarises); with two, from the first
 * to the second. Each is named whole or by a unique prefix (store/version-prefix.ts).
 */
import { loadEdgeSettings } from "../config/load-config";
import { diffLines, diffTables, type TableDiff } from "../report/diff-tables";
import { withStore } from "../store/open-store";
import { readHistory, readPointer } from "../store/publish";
import { readTable } from "../store/read-table";
import { resolveVersion } from "../store/version-prefix";
import { UserError } from "../lib/user-error";
import type { TableHistoryEntry } from "../../src/table/route-table";
import { type CommandIO, EXIT, type Outcome } from "./command";
import { storeTarget, type TargetOptions } from "./flags";

export interface VersionsDiffData {
  table: string;
  /** Absent when the version is the first one written. */
  from?: string;
  to: string;
  diff: TableDiff;
}

/**
 * The version to compare `version` with: the one served when it was written (its history entry says which), else
 * (an entry older than that field) the one kept before it; none for the first version.
 */
function previousOf(version: string, entries: TableHistoryEntry[], table: string): string | undefined {
  const at = entries.findIndex((e) => e.version === version);
  const entry = entries[at];
  if (entry?.previous && entries.some((e) => e.version === entry.previous)) return entry.previous;
  if (entry?.previous)
    throw new UserError(
      `${version} of table ${table} replaced ${entry.previous}, which is no longer kept`,
      `compare it with a kept one: kedge diff FROM ${version} (kept: ${entries.map((e) => e.version).join(", ")})`,
    );
  return entries[at + 1]?.version;
}

/** The two versions to compare: `[from, to]` as given, or for one version, the one served before it and it. */
export async function diffVersions(options: TargetOptions, given: string[], io: CommandIO): Promise<Outcome<VersionsDiffData>> {
  if (given.length > 2)
    throw new UserError(`kedge diff takes at most two versions, not ${given.length}`, "kedge diff VERSION, or kedge diff FROM TO");
  const name = loadEdgeSettings(options.config).name;
  const { from, to, before, after } = await withStore(storeTarget(options), "read", { progress: io.progress }, (store) =>
    store.use(async (kv) => {
      const pointer = await readPointer(kv, name);
      const read = await readHistory(kv, name, { pointer });
      if (read.problem) io.note(`! ${read.problem}`);
      const kept = read.entries.map((e) => e.version);
      const versions = given.map((v) => resolveVersion(v, kept, name));
      const [from, to] = versions.length === 2 ? versions : [previousOf(versions[0]!, read.entries, name), versions[0]!];
      const table = async (version: string) => {
        const found = await readTable(kv, name, version);
        if (!found)
          throw new UserError(`version ${version} of table ${name} is not stored (or is unreadable)`, `kept versions: ${kept.join(", ")}`);
        return found;
      };
      return { from, to: to!, before: from ? await table(from) : null, after: await table(to!) };
    }),
  );
  const diff = diffTables(before, after);
  const same = from === to;
  return {
    code: same ? EXIT.OK : EXIT.REFUSED,
    data: { table: name, ...(from ? { from } : {}), to, diff },
    text: [
      same
        ? `table ${name}: ${from} and ${to} are the same version`
        : from
          ? `table ${name}: ${from} → ${to}`
          : `table ${name}: ${to} is the first version kept; everything in it is new`,
      ...diffLines(diff),
    ],
  };
}
