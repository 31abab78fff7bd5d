/**
 * @module Whether one prepared match holds for a request: path, method, headers and query parameters
 * (the host was settled by the host index before).
 */
import type { Protocol } from "../table/route-table";
import type { PreparedMatch } from "./prepared-table";

/** What the matcher looks at. `host` is lower-case without a port; `path` excludes the query. */
export interface RequestFacts {
  protocol: Protocol;
  host: string;
  path: string;
  method: string;
  headers: { get(name: string): string | null };
  query: { get(name: string): string | null };
  /** The port the request arrived on (Cloudflare serves HTTP on 80, 8080, 8880, ... and HTTPS on 443, 8443, ...). */
  port?: number;
}

function pathMatches(m: PreparedMatch, path: string): boolean {
  const type = m.pathType;
  const value = m.pathValue;
  if (type === "Exact") return path === value;
  if (type === "PathPrefix") {
    // Segment boundary: `/abc` matches `/abc` and `/abc/...`, never `/abcd`.
    return value === "/" || (path.startsWith(value) && (path.length === value.length || path.charCodeAt(value.length) === 47));
  }
  return m.pathRegex?.test(path) ?? false;
}

/**
 * Whether one prepared match holds for a request (path, method, headers, query; not the host). A caller
 * that has already read one header gives its name and value, so it is not read from the request again.
 */
export function matchHolds(m: PreparedMatch, req: RequestFacts, readName?: string, readValue: string | null = null): boolean {
  if (m.method !== undefined && m.method !== req.method) return false;
  if (!pathMatches(m, req.path)) return false;
  if (!m.conditions) return true;
  const { match } = m;
  for (let i = 0; i < match.headers.length; i++) {
    const h = match.headers[i]!;
    const actual = h.name === readName ? readValue : req.headers.get(h.name);
    if (actual === null) return false;
    const regex = m.headerRegex[i];
    if (regex ? !regex.test(actual) : actual !== h.value) return false;
  }
  for (let i = 0; i < match.queryParams.length; i++) {
    const q = match.queryParams[i]!;
    const actual = req.query.get(q.name); // the first value of a repeated parameter (spec recommendation)
    if (actual === null) return false;
    const regex = m.queryRegex[i];
    if (regex ? !regex.test(actual) : actual !== q.value) return false;
  }
  return true;
}
