/**
 * @module Endpoints the edge cannot use, each told with its EndpointSlice, cluster and reason (nothing kedge
 * drops is dropped silently): a slice of a used Service with no port of the Service port's name (or one without
 * a number), and a slice no Service owns (no kubernetes.io/service-name label).
 */
import type { Manifest } from "../../gateway-api/manifest";
import { type DroppedSlice, leftOut } from "../backends/service-endpoints";
import type { ResourceIndex } from "../input/resource-index";
import { SERVICE_NAME_LABEL } from "../input/resource-index";
import { specOf } from "../input/typed-objects";
import type { CompileReport } from "../status/compile-report";
import { REASON } from "../status/conditions";

/** Tells each dropped slice once (per reason); returns the slices left out. */
export function reportDroppedEndpoints(dropped: DroppedSlice[], index: ResourceIndex, report: CompileReport): Manifest[] {
  const told = new Set<string>();
  const slices: Manifest[] = [];
  for (const d of dropped) {
    const key = `${d.slice.cluster}/${d.slice.metadata.namespace}/${d.slice.metadata.name}\u0000${d.why}`;
    if (told.has(key)) continue;
    told.add(key);
    slices.push(d.slice);
    report.warn(
      d.slice,
      "ports",
      REASON.EndpointsDropped,
      `EndpointSlice ${d.slice.metadata.namespace}/${d.slice.metadata.name} in cluster ${d.slice.cluster} ${d.why}`,
    );
  }
  for (const slice of index.all("EndpointSlice")) {
    if (slice.metadata.labels[SERVICE_NAME_LABEL] !== undefined) continue;
    const count = (specOf(slice, "EndpointSlice").endpoints ?? []).length;
    slices.push(slice);
    report.warn(
      slice,
      "metadata.labels",
      REASON.EndpointsDropped,
      `EndpointSlice ${slice.metadata.namespace}/${slice.metadata.name} in cluster ${slice.cluster} has no ${SERVICE_NAME_LABEL} label, so it belongs to no Service: ${leftOut(count)}`,
    );
  }
  return slices;
}
