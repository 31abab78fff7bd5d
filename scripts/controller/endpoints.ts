/**
 * @module The controller's HTTP endpoints, on the addresses controller-runtime's flags name: `/metrics` on
 * `--metrics-bind-address`, `/healthz` and `/readyz` on `--health-probe-bind-address` (both on one server
 * when the two name the same address). An address is `host:port` as Go's net.Listen takes it (`:8080` every
 * interface, `127.0.0.1:8081`, `[::1]:8081`; port 0 picks a free one), or `0` to serve nothing.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { UserError } from "../lib/user-error";

export interface BindAddress {
  /** Undefined: every interface. */
  host?: string;
  port: number;
  /** As given, for messages. */
  text: string;
}

/** A bind address flag's value; null for `0` (serve nothing). A value that is not one is a UserError (exit 2). */
export function parseBindAddress(text: string, flag: string): BindAddress | null {
  if (text === "0") return null;
  const parsed = /^(\[[0-9a-fA-F:.]+\]|[^:[\]\s]*):(\d{1,5})$/.exec(text);
  const port = parsed ? Number(parsed[2]) : Number.NaN;
  if (!parsed || port > 65535)
    throw new UserError(
      `${flag} ${JSON.stringify(text)} is not an address to listen on`,
      `host:port as controller-runtime takes it: ${flag} :8080 (every interface), ${flag} 127.0.0.1:8080, or ${flag} 0 to serve none`,
    );
  const host = parsed[1]!.replace(/^\[|\]$/g, "");
  return { ...(host ? { host } : {}), port, text };
}

/** What the endpoints answer. */
export interface EndpointHandlers {
  metrics(): Promise<{ contentType: string; body: string }>;
  /** Why the process is not healthy (empty: healthy). */
  health(): string[];
  /** Why it is not ready, or null. */
  readiness(): string | null;
}

type Route = (url: URL) => Promise<{ status: number; type: string; body: string }>;

const check = (problems: string[], name: string) => ({
  status: problems.length === 0 ? 200 : 500,
  type: "text/plain; charset=utf-8",
  body: problems.length === 0 ? "ok\n" : `${problems.map((p) => `[-]${p}`).join("\n")}\n${name} check failed\n`,
});

function listen(routes: Map<string, Route>, at: BindAddress, flag: string): Promise<Server> {
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://kedge");
    const route = routes.get(url.pathname);
    if (!route || (req.method !== "GET" && req.method !== "HEAD")) {
      res.writeHead(route ? 405 : 404, { "content-type": "text/plain; charset=utf-8" });
      res.end(route ? "method not allowed\n" : `not found: ${[...routes.keys()].join(", ")} are served here\n`);
      return;
    }
    route(url).then(
      (answer) => {
        res.writeHead(answer.status, { "content-type": answer.type });
        res.end(req.method === "HEAD" ? undefined : answer.body);
      },
      (error: unknown) => {
        res.writeHead(500, { "content-type": "text/plain; charset=utf-8" });
        res.end(`${error instanceof Error ? error.message : String(error)}\n`);
      },
    );
  });
  return new Promise((resolve, reject) => {
    server.once("error", (error: NodeJS.ErrnoException) =>
      reject(
        new UserError(
          `${flag} ${at.text}: cannot listen there (${error.code ?? error.message}${error.code === "EADDRINUSE" ? ": the port is in use" : ""})`,
          `choose another address, or ${flag} 0 to serve none`,
        ),
      ),
    );
    server.listen(at.port, at.host, () => resolve(server));
  });
}

export interface ServedEndpoints {
  /** The URLs served, e.g. `{ metrics: "http://127.0.0.1:8080/metrics" }`. */
  urls: Record<string, string>;
  close(): Promise<void>;
}

/** Serves the endpoints the addresses ask for; a port that cannot be listened on is a UserError. */
export async function serveEndpoints(
  addresses: { metrics: BindAddress | null; probes: BindAddress | null },
  handlers: EndpointHandlers,
): Promise<ServedEndpoints> {
  const byAddress = new Map<string, { at: BindAddress; flag: string; routes: Map<string, Route> }>();
  const add = (at: BindAddress | null, flag: string, path: string, route: Route) => {
    if (!at) return;
    const key = `${at.host ?? ""}|${at.port}`;
    const entry = byAddress.get(key) ?? { at, flag, routes: new Map<string, Route>() };
    entry.routes.set(path, route);
    byAddress.set(key, entry);
  };
  add(addresses.metrics, "--metrics-bind-address", "/metrics", async () => {
    const { contentType, body } = await handlers.metrics();
    return { status: 200, type: contentType, body };
  });
  add(addresses.probes, "--health-probe-bind-address", "/healthz", async () => check(handlers.health(), "healthz"));
  add(addresses.probes, "--health-probe-bind-address", "/readyz", async () => {
    const why = handlers.readiness();
    return check(why ? [why] : [], "readyz");
  });
  const servers: Server[] = [];
  const urls: Record<string, string> = {};
  try {
    for (const { at, flag, routes } of byAddress.values()) {
      const server = await listen(routes, at, flag);
      servers.push(server);
      const { port } = server.address() as AddressInfo;
      const host = at.host ? (at.host.includes(":") ? `[${at.host}]` : at.host) : "127.0.0.1";
      for (const path of routes.keys()) urls[path.slice(1)] = `http://${host}:${port}${path}`;
    }
  } catch (error) {
    await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
    throw error;
  }
  return {
    urls,
    close: () =>
      Promise.all(servers.map((s) => new Promise<void>((r) => (s.closeAllConnections(), s.close(() => r()))))).then(() => undefined),
  };
}
