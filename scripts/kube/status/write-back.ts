/**
 * @module After a push: the status of every object of the live clusters written back into them, and what
 * a person reads of it (one line per cluster, one per object that could not be written, with its fix).
 */
import type { ResourceStatus } from "../../../src/compile/status/diagnostics";
import type { Manifest } from "../../../src/gateway-api/manifest";
import type { LiveCluster } from "../read-cluster";
import { type StatusWrites, writeClusterStatuses } from "./writer";
import { count } from "../../report/report";

/**
 * Writes each live cluster's statuses (the clusters at once), as `controller`, over `objects` as read;
 * never throws for a cluster that refuses.
 */
export function writeBackStatuses(
  live: LiveCluster[],
  statuses: ResourceStatus[],
  controller: string,
  objects: Manifest[],
): Promise<StatusWrites[]> {
  return Promise.all(live.map(({ api, listings }) => writeClusterStatuses(api, listings, statuses, { controller, objects })));
}

/** One line per cluster, and one per object not written. */
export function describeStatusWrites(reports: StatusWrites[]): { lines: string[]; problems: string[] } {
  const lines = reports.map(
    (r) =>
      `status written back to cluster ${r.cluster}: ${count(r.written.length, "object")} changed, ${r.unchanged} unchanged${r.skipped.length ? `, ${r.skipped.length} not kedge's to write` : ""}${r.failed.length ? `, ${r.failed.length} failed` : ""}`,
  );
  const problems = reports.flatMap((r) =>
    r.failed.map((f) => `! cluster ${r.cluster}: status of ${f.object} not written: ${f.problem}${f.fix ? `\n    fix: ${f.fix}` : ""}`),
  );
  return { lines, problems };
}
