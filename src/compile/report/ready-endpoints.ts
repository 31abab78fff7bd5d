/** @module Backends routes use that have no endpoint taking traffic: they answer 503 at the edge, so the sync says so. */
import { type CompiledBackend, takesNewTraffic } from "../../table/route-table";
import type { ResourceIndex } from "../input/resource-index";
import type { Diagnostics } from "../status/diagnostics";

export function reportNoReadyEndpoints(backends: CompiledBackend[], index: ResourceIndex, diagnostics: Diagnostics): void {
  for (const backend of backends) {
    if (backend.endpoints.some(takesNewTraffic)) continue;
    const { cluster, kind, namespace, name } = backend.source;
    diagnostics.warn(
      index.get(cluster, kind, namespace, name) ?? backend.source,
      undefined,
      "NoReadyEndpoints",
      `${kind} ${namespace}/${name} (port ${backend.port}) has no ready endpoint; requests for it answer 503`,
    );
  }
}
