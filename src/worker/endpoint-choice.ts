/**
 * @module Which endpoint of the chosen backend takes a request, and which takes a retry: by weight,
 * nearest clusters first (locality policy), avoiding endpoints the active checks found unhealthy or
 * passive health ejected while others can serve. A retry avoids the endpoints already tried, and their
 * clusters when another cluster can serve. Every try's outcome feeds passive health.
 */
import type { RequestLocation } from "../routing/locality";
import type { PreparedBackend, PreparedTable } from "../routing/prepared-table";
import { pickEndpoint } from "../routing/select-backend";
import type { CompiledEndpoint } from "../table/route-table";
import type { OutlierDetector } from "./outlier-detector";

export interface EndpointChoice {
  /** The first endpoint, or null when the backend has none ready. */
  endpoint: CompiledEndpoint | null;
  /** Another endpoint for a retry, or null. */
  next(tried: CompiledEndpoint[]): CompiledEndpoint | null;
  /** Told the outcome of every try. */
  onOutcome(endpoint: CompiledEndpoint, healthy: boolean): void;
}

export function chooseEndpoint(
  prepared: PreparedTable,
  backend: PreparedBackend,
  location: RequestLocation,
  outliers: OutlierDetector,
): EndpointChoice {
  const clock = Date.now();
  const ejected = (e: CompiledEndpoint) => prepared.unhealthy.has(e.id) || outliers.isEjected(e.id, clock);
  const avoiding = outliers.anyEjected || prepared.unhealthy.size > 0;
  const endpoint =
    (avoiding ? pickEndpoint(prepared, backend, Math.random(), location, ejected) : null) ??
    pickEndpoint(prepared, backend, Math.random(), location);
  const peers = backend.backend.endpoints;
  return {
    endpoint,
    next: (tried) => {
      const clusters = new Set(tried.map((t) => t.cluster));
      const avoid = (cluster: boolean) => (e: CompiledEndpoint) => tried.includes(e) || ejected(e) || (cluster && clusters.has(e.cluster));
      return (
        pickEndpoint(prepared, backend, Math.random(), location, avoid(true)) ??
        pickEndpoint(prepared, backend, Math.random(), location, avoid(false))
      );
    },
    onOutcome: (e, healthy) => (healthy ? outliers.recordSuccess(e.id) : outliers.recordFailure(e, peers, Date.now())),
  };
}
