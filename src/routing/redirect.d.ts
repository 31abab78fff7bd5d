/** @module RequestRedirect (spec §2): the Location header, with the scheme/port defaulting rules. */
import type { CompiledFilter } from "../table/route-table";
type Redirect = Extract<
  CompiledFilter,
  {
    type: "RequestRedirect";
  }
>;
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
export declare function redirectLocation(filter: Redirect, req: RedirectInput): string;
export {};
