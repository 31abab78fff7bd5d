/**
 * @module Loopback HTTP origins standing in for cluster endpoints. Each answers with its cluster,
 * endpoint and the request it saw. Test knobs (as in the Gateway API conformance echo server):
 * `?delay=500ms`, `?status=503`, and `X-Echo-Set-Header: Name:value,Name2:value2`.
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { parseDuration } from "../../src/gateway-api/duration";

export interface OriginIdentity {
  cluster: string;
  endpoint: string;
  /** The backends (Services) this endpoint serves, for humans reading the answer. */
  backends: string[];
}

/** What an origin answers with (JSON body). */
export interface EchoResponse extends OriginIdentity {
  request: { method: string; path: string; query: string; headers: Record<string, string>; bodyBytes: number };
}

export interface Origin {
  identity: OriginIdentity;
  port: number;
  /** Requests served so far. */
  count(): number;
  close(): Promise<void>;
}

async function readBody(req: IncomingMessage): Promise<number> {
  let bytes = 0;
  for await (const chunk of req) bytes += (chunk as Buffer).length;
  return bytes;
}

export async function startOrigin(identity: OriginIdentity, port = 0, host = "127.0.0.1"): Promise<Origin> {
  let served = 0;
  const server: Server = createServer(async (req, res) => {
    served++;
    const url = new URL(req.url ?? "/", "http://origin");
    const bodyBytes = await readBody(req);
    const delay = parseDuration(url.searchParams.get("delay") ?? "") ?? 0;
    if (delay > 0) await new Promise((r) => setTimeout(r, Math.min(delay, 30_000)));
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) headers[k] = Array.isArray(v) ? v.join(",") : (v ?? "");
    for (const pair of (headers["x-echo-set-header"] ?? "").split(",").filter(Boolean)) {
      const [name, ...value] = pair.split(":");
      if (name) res.setHeader(name.trim(), value.join(":").trim());
    }
    const status = Number(url.searchParams.get("status") ?? 200);
    const body: EchoResponse = {
      ...identity,
      request: { method: req.method ?? "", path: url.pathname, query: url.search, headers, bodyBytes },
    };
    res.writeHead(status >= 200 && status <= 599 ? status : 200, {
      "content-type": "application/json",
      "x-origin-cluster": identity.cluster,
      "x-origin-endpoint": identity.endpoint,
    });
    res.end(JSON.stringify(body));
  });
  await new Promise<void>((resolveListen, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolveListen());
  });
  return {
    identity,
    port: (server.address() as AddressInfo).port,
    count: () => served,
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
