/**
 * @module What one request did, as one record: filled by the handler's steps, then written once as a
 * structured log line (Workers Logs can be queried by field) and, when a Workers Analytics Engine dataset
 * is bound as KEDGE_ANALYTICS, as one data point with the same dimensions. Errors (5xx) are always
 * logged; other requests as often as KEDGE_LOG_SAMPLE says (a fraction, 0 by default).
 */
import type { Env } from "./env";

export type SessionOutcome = "none" | "new" | "resumed" | "moved";

export interface RequestRecord {
  requestId: string;
  method: string;
  host: string;
  /** `<name>@<version>`: the version that answered (the canary's or the current one while a canary runs). */
  table?: string;
  /** The canary in progress when the request came (its id), whichever version answered: counted per version for its analysis. */
  canary?: string;
  route?: string;
  rule?: string;
  backend?: string;
  cluster?: string;
  endpoint?: string;
  status?: number;
  /** The error code when the gateway answered itself with an error. */
  error?: string;
  /** Milliseconds from the request's arrival to the upstream's answer. */
  upstreamMs?: number;
  tries?: number;
  session?: SessionOutcome;
  /** Locality tier of the endpoint that answered (0 nearest), when the table has a locality policy. */
  tier?: number;
}

/** A new record; the host is filled in when the request line is read (a URL is parsed once per request). */
export const newRecord = (requestId: string, request: Request): RequestRecord => ({ requestId, method: request.method, host: "" });

/** What an Analytics Engine data point holds: blobs for dimensions, doubles for measures, the table as index. */
export interface DataPoint {
  indexes: string[];
  blobs: string[];
  doubles: number[];
}

/**
 * The data point of a record. Blob and double positions are the column names in SQL (docs/observability.md):
 * blob1 host, blob2 route, blob3 rule, blob4 backend, blob5 cluster, blob6 endpoint, blob7 session,
 * blob8 error; double1 status, double2 upstream ms, double3 tries, double4 tier (-1 without locality).
 */
export function dataPointOf(r: RequestRecord): DataPoint {
  return {
    indexes: [r.table ?? ""],
    blobs: [r.host, r.route ?? "", r.rule ?? "", r.backend ?? "", r.cluster ?? "", r.endpoint ?? "", r.session ?? "none", r.error ?? ""],
    doubles: [r.status ?? 0, r.upstreamMs ?? -1, r.tries ?? 0, r.tier ?? -1],
  };
}

interface AnalyticsDataset {
  writeDataPoint(point: DataPoint): void;
}

/** Writes the record: the log line when sampled (always for a 5xx), the data point when a dataset is bound. */
export function reportRequest(r: RequestRecord, env: Env, random = Math.random()): void {
  const sample = Number((env as { KEDGE_LOG_SAMPLE?: string }).KEDGE_LOG_SAMPLE ?? 0);
  if ((r.status ?? 0) >= 500 || random < sample) console.log(JSON.stringify({ kedge: "request", ...r }));
  const dataset = (env as { KEDGE_ANALYTICS?: AnalyticsDataset }).KEDGE_ANALYTICS;
  if (dataset) dataset.writeDataPoint(dataPointOf(r));
}
