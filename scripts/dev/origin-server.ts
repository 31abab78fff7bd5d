/**
 * @module Loopback HTTP origins standing in for cluster endpoints. Each answers with its cluster,
 * endpoint and the request it saw. Test knobs (as in the Gateway API conformance echo server):
 * `?delay=500ms`, `?status=503`, `?earlyHints=1` (a 103 before the answer), and
 * `X-Echo-Set-Header: Name:value,Name2:value2`; for retries (as the conformance echo server's retry
 * simulation), `?status=500&succeedAfter=2&key=K` fails the first 2 requests with key K, then answers 200;
 * without `status` those first requests have their connection reset instead, and `delayRetry=300ms`
 * holds each failing answer back that long. Requests
 * carrying `X-Test-Id` are counted: `GET /__origin/count?testId=ID` answers `{"count": n}` (mirror tests).
 * `GET /__origin/health` answers the origin's health status (200), `?set=503` changes it (health-check tests);
 * `/__origin/health/<name>` is a switch of its own, so test files that run side by side do not flip each other's.
 * A WebSocket handshake is accepted: the origin sends one text message (its identity and the path and
 * Upgrade header it saw) and keeps the connection until the client closes it.
 */
import { createHash } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
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

/** RFC 6455 §4.2.2: the accept value for a client's Sec-WebSocket-Key. */
export function webSocketAccept(key: string): string {
  return createHash("sha1").update(`${key}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest("base64");
}

/** One unmasked text frame (server to client), RFC 6455 §5.2. */
function textFrame(text: string): Buffer {
  const payload = Buffer.from(text);
  const length = payload.length < 126 ? Buffer.from([payload.length]) : Buffer.from([126, payload.length >> 8, payload.length & 0xff]);
  return Buffer.concat([Buffer.from([0x81]), length, payload]);
}

function acceptWebSocket(identity: OriginIdentity, req: IncomingMessage, socket: Duplex): void {
  socket.on("error", () => socket.destroy());
  const key = req.headers["sec-websocket-key"];
  if (req.headers.upgrade?.toLowerCase() !== "websocket" || typeof key !== "string") {
    socket.end("HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n");
    return;
  }
  socket.write(
    `HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${webSocketAccept(key)}\r\n\r\n`,
  );
  socket.write(textFrame(JSON.stringify({ ...identity, path: req.url, upgrade: req.headers.upgrade })));
}

export async function startOrigin(identity: OriginIdentity, port = 0, host = "127.0.0.1"): Promise<Origin> {
  let served = 0;
  const failures = new Map<string, number>();
  const seenTestIds = new Map<string, number>();
  /** Health answers by switch: "" for `/__origin/health`, "/<name>" for each named one. */
  const healthStatus = new Map<string, number>();
  const answer = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    // Appended, not resolved: a request target "//a/b" is the path "//a/b", not the host "a".
    const target = req.url ?? "/";
    let url: URL;
    try {
      url = new URL(target.startsWith("/") ? `http://origin${target}` : target);
    } catch {
      res.writeHead(400, { "content-type": "text/plain" });
      res.end(`no path in the request target ${target}`);
      return;
    }
    if (url.pathname === "/__origin/count") {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ count: seenTestIds.get(url.searchParams.get("testId") ?? "") ?? 0 }));
      return;
    }
    if (url.pathname === "/__origin/health" || url.pathname.startsWith("/__origin/health/")) {
      const key = url.pathname.slice("/__origin/health".length);
      const set = Number(url.searchParams.get("set"));
      if (set >= 200 && set <= 599) healthStatus.set(key, set);
      const status = healthStatus.get(key) ?? 200;
      res.writeHead(status, { "content-type": "text/plain" });
      res.end(String(status));
      return;
    }
    served++;
    const testId = req.headers["x-test-id"];
    if (typeof testId === "string") {
      seenTestIds.set(testId, (seenTestIds.get(testId) ?? 0) + 1);
      if (seenTestIds.size > 10_000) seenTestIds.clear();
    }
    const bodyBytes = await readBody(req);
    const delay = parseDuration(url.searchParams.get("delay") ?? "") ?? 0;
    if (delay > 0) await new Promise((r) => setTimeout(r, Math.min(delay, 30_000)));
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) headers[k] = Array.isArray(v) ? v.join(",") : (v ?? "");
    for (const pair of (headers["x-echo-set-header"] ?? "").split(",").filter(Boolean)) {
      const [name, ...value] = pair.split(":");
      if (name) res.setHeader(name.trim(), value.join(":").trim());
    }
    let status = Number(url.searchParams.get("status") ?? 200);
    const succeedAfter = Number(url.searchParams.get("succeedAfter") ?? Number.NaN);
    if (Number.isInteger(succeedAfter)) {
      const key = url.searchParams.get("key") ?? "";
      const failed = failures.get(key) ?? 0;
      failures.set(key, failed + 1);
      if (failed >= succeedAfter) status = 200;
      else {
        const delayRetry = parseDuration(url.searchParams.get("delayRetry") ?? "") ?? 0;
        if (delayRetry > 0) await new Promise((r) => setTimeout(r, Math.min(delayRetry, 30_000)));
        if (!url.searchParams.has("status")) {
          res.socket?.resetAndDestroy();
          return;
        }
      }
    }
    const body: EchoResponse = {
      ...identity,
      request: { method: req.method ?? "", path: url.pathname, query: url.search, headers, bodyBytes },
    };
    if (url.searchParams.has("earlyHints")) res.writeEarlyHints({ link: "</style.css>; rel=preload" });
    res.writeHead(status >= 200 && status <= 599 ? status : 200, {
      "content-type": "application/json",
      "x-origin-cluster": identity.cluster,
      "x-origin-endpoint": identity.endpoint,
    });
    res.end(JSON.stringify(body));
  };
  // A client that hangs up mid-body fails the body read: that request just ends, and the origin (and the
  // `npm start` process it runs in) keeps serving.
  const server: Server = createServer((req, res) => void answer(req, res).catch(() => res.destroy()));
  // Upgraded connections leave the server's own bookkeeping: kept here so close() ends them too.
  const upgraded = new Set<Duplex>();
  server.on("upgrade", (req: IncomingMessage, socket: Duplex) => {
    upgraded.add(socket);
    socket.on("close", () => upgraded.delete(socket));
    acceptWebSocket(identity, req, socket);
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
        for (const socket of upgraded) socket.destroy();
        server.close(() => r());
      }),
  };
}
