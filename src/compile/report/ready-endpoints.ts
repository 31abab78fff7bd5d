/** @module Backends routes use that have no endpoint taking traffic: they answer 503 at the edge, so the sync says so. */
import type { CompileReport } from "../status/compile-report";
import { REASON } from "../status/conditions";
import { type CompiledBackend, takesNewTraffic } from "../../table/route-table";
import type { ResourceIndex } from "../input/resource-index";

/** `draining`: clusters whose endpoints take no new traffic (kedge.yaml state Draining). */
export function reportNoReadyEndpoints(
  backends: CompiledBackend[],
  index: ResourceIndex,
  draining: ReadonlySet<string>,
  report: CompileReport,
): void {
  for (const backend of backends) {
    const ready = backend.endpoints.filter(takesNewTraffic);
    if (ready.some((e) => !draining.has(e.cluster))) continue;
    const { cluster, kind, namespace, name } = backend.source;
    const onlyDraining = ready.length > 0 ? ` outside draining clusters (${[...new Set(ready.map((e) => e.cluster))].join(", ")})` : "";
    report.warn(
      index.get(cluster, kind, namespace, name) ?? backend.source,
      undefined,
      REASON.NoReadyEndpoints,
      `${kind} ${namespace}/${name} (port ${backend.port}) has no ready endpoint${onlyDraining}; ${onlyDraining ? "new requests" : "requests"} for it answer 503`,
    );
  }
}
