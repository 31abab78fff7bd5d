/**
 * @module The parts of the request the gateway routes on, read once: every Request and URL getter is a
 * call into workerd that builds a new string, so the handler reads each of them a single time.
 */

export interface RequestLine {
  method: string;
  scheme: "http" | "https";
  /** Lower-case, without port or trailing dot (workerd builds the URL's host from the Host header). */
  host: string;
  /** The port the client addressed: explicit, else the scheme's default. */
  port: number;
  /** The Host exactly as the client sent it, port included (what X-Forwarded-Host carries). */
  authority: string;
  path: string;
  /** The query including "?", or "". */
  search: string;
}

export function readRequestLine(request: Request, url: URL): RequestLine {
  const scheme = url.protocol === "https:" ? "https" : "http";
  const hostname = url.hostname.toLowerCase();
  const port = url.port;
  return {
    method: request.method,
    scheme,
    host: hostname.endsWith(".") ? hostname.slice(0, -1) : hostname,
    port: port ? Number(port) : scheme === "https" ? 443 : 80,
    // A Request built in a Worker (tests, service bindings) may have no Host header: its URL's host stands in.
    authority: request.headers.get("host") ?? url.host,
    path: url.pathname,
    search: url.search,
  };
}

/** The query parameters, parsed only when a match asks for one. */
export function lazyQuery(search: string): { get(name: string): string | null } {
  let params: URLSearchParams | undefined;
  return { get: (name) => (params ??= new URLSearchParams(search)).get(name) };
}
