/** @module RequestRedirect (spec §2): the Location header, with the scheme/port defaulting rules. */
import type { CompiledFilter } from "../table/route-table";
import { modifyPath } from "./rewrite-path";

type Redirect = Extract<CompiledFilter, { type: "RequestRedirect" }>;

export interface RedirectInput {
  scheme: "http" | "https";
  /** Request host without port. */
  host: string;
  path: string;
  /** The query string including "?", or "". */
  search: string;
  listenerPort: number;
}

/**
 * Port: explicit, else the scheme's default when the scheme is set, else the listener's port.
 * The port is left out of Location when it is the scheme's default.
 */
export function redirectLocation(filter: Redirect, req: RedirectInput): string {
  const scheme = filter.scheme ?? req.scheme;
  const port = filter.port ?? (filter.scheme ? (filter.scheme === "https" ? 443 : 80) : req.listenerPort);
  const host = filter.hostname ?? req.host;
  const isDefault = (scheme === "http" && port === 80) || (scheme === "https" && port === 443);
  return `${scheme}://${host}${isDefault ? "" : `:${port}`}${modifyPath(req.path, filter.path)}${req.search}`;
}
