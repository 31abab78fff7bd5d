/**
 * HTTP on the wire, over real sockets. Hop-by-hop headers, both ways: a client's never reach the origin,
 * an origin's never reach the client (the runtime's HTTP layer owns Connection, Keep-Alive, TE, Trailer,
 * Upgrade and Transfer-Encoding, and the gateway removes the rest; a runtime that stopped doing its part
 * fails here too). And a keep-alive connection outlives the gateway's own answers to requests with a body.
 */
import { Agent, createServer, type IncomingHttpHeaders, request, type Server } from "node:http";
import { type AddressInfo, connect } from "node:net";
import { afterAll, beforeAll, describe, it } from "vitest";
import type { LocalGateway } from "../../scripts/dev/local-gateway";
import { endpointSlice, gatewayAndRoute, service, yamlDocs } from "../support/manifests";
import { startGateway, tearDown, Workspace } from "./harness";

/** What an origin may send that is about its own connection to the gateway, plus two headers that are not. */
const ORIGIN_HEADERS: [string, string][] = [
  ["connection", "keep-alive, X-Origin-Private, , not a name"],
  ["keep-alive", "timeout=5"],
  ["x-origin-private", "1"],
  ["proxy-authenticate", "Basic realm=origin"],
  ["proxy-connection", "keep-alive"],
  ["upgrade", "h2c"],
  ["te", "trailers"],
  ["trailer", "x-checksum"],
  ["transfer-encoding", "chunked"],
  ["content-type", "application/json"],
  ["x-origin-kept", "1"],
];

/** An origin that answers with ORIGIN_HEADERS and a body listing the request headers it received. */
async function startHopOrigin(): Promise<{ server: Server; port: number }> {
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      res.writeHead(200, ORIGIN_HEADERS);
      res.write(JSON.stringify(req.headers));
      res.addTrailers({ "x-checksum": "0" });
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

interface Sent {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
  /** Whether the request went over a connection an earlier one used. */
  reusedSocket: boolean;
}

interface Sending {
  headers?: Record<string, string>;
  method?: string;
  host?: string;
  path?: string;
  body?: string;
  /** Send the body in chunks, without a Content-Length. */
  chunked?: boolean;
  agent?: Agent;
}

/** One request over a real socket; the response's headers and body. */
function send(gateway: LocalGateway, o: Sending = {}): Promise<Sent> {
  return new Promise((resolve, reject) => {
    const headers = { host: o.host ?? "hops.example.com", ...o.headers, ...(o.chunked ? { "transfer-encoding": "chunked" } : {}) };
    const options = {
      host: "127.0.0.1",
      port: Number(gateway.url.port),
      method: o.method ?? "GET",
      path: o.path ?? "/",
      headers,
      agent: o.agent,
    };
    const req = request(options, (res) => {
      let body = "";
      res.on("data", (chunk: Buffer) => (body += chunk.toString()));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body, reusedSocket: req.reusedSocket }));
    });
    req.setTimeout(10_000, () => req.destroy(new Error("no answer within 10 s")));
    req.on("error", reject);
    if (o.chunked && o.body) for (let i = 0; i < o.body.length; i += 1000) req.write(o.body.slice(i, i + 1000));
    req.end(o.chunked ? undefined : o.body);
  });
}

describe("HTTP on the wire", () => {
  const ws = new Workspace();
  let origin: { server: Server; port: number };
  let gateway: LocalGateway;

  beforeAll(async () => {
    origin = await startHopOrigin();
    const routes = gatewayAndRoute({
      namespace: "hops",
      hostname: "hops.example.com",
      route: "hops",
      rules: `    - matches: [{ path: { type: PathPrefix, value: /moved } }]
      filters: [{ type: RequestRedirect, requestRedirect: { hostname: elsewhere.example.com, statusCode: 301 } }]
    - matches: [{ path: { type: PathPrefix, value: /down } }]
      backendRefs: [{ name: down, port: 8080 }]
    - backendRefs: [{ name: web, port: 8080 }]`,
    });
    const slice = endpointSlice({ service: "web", name: "web-1", namespace: "hops", port: origin.port, conditions: "{ ready: true }" });
    // Nothing listens on port 1: every try to it fails to connect.
    const down = yamlDocs(service("down", "hops"), endpointSlice({ service: "down", name: "down-1", namespace: "hops", port: 1 }));
    // A cluster behind a VPC network binding whose /down pod the network cannot reach: the binding's fetch() throws.
    const privateRoutes = gatewayAndRoute({
      namespace: "private",
      hostname: "private.example.com",
      route: "private",
      rules: `    - matches: [{ path: { type: PathPrefix, value: /down } }]
      backendRefs: [{ name: down, port: 8080 }]
    - backendRefs: [{ name: web, port: 8080 }]`,
    });
    const privatePods = yamlDocs(
      service("web", "private"),
      endpointSlice({ service: "web", name: "web-1", namespace: "private", port: 8080, addresses: ["10.0.0.5"] }),
      service("down", "private"),
      endpointSlice({ service: "down", name: "down-1", namespace: "private", port: 8080, addresses: ["10.0.0.6"] }),
    );
    ws.write({
      "kedge.yaml": `apiVersion: kedge.dev/v1alpha1
kind: EdgeConfig
metadata: { name: hops }
spec: { gatewayClassName: kedge, clusters: [{ name: c1 }, { name: p1, endpoints: { network: VPC_P1 } }] }
`,
      "clusters/c1/app.yaml": yamlDocs(routes, service("web", "hops"), slice, down),
      "clusters/p1/app.yaml": yamlDocs(privateRoutes, privatePods),
    });
    const synced = await ws.sync();
    if (synced.code !== 0) throw new Error(`sync failed: ${synced.stderr}${synced.stdout}`);
    gateway = await startGateway(ws.state, "hops", { VPC_P1: { "10.0.0.5:8080": `127.0.0.1:${origin.port}` } });
  });

  afterAll(async () => {
    await tearDown({ gateway, ws });
    await new Promise((resolve) => origin.server.close(resolve));
  });

  it("the client's hop-by-hop headers stay with the client, those its Connection header names included", async ({ expect }) => {
    const answer = await send(gateway, {
      headers: {
        connection: "keep-alive, X-Client-Private, , not a name",
        "keep-alive": "timeout=9",
        "x-client-private": "1",
        "proxy-authorization": "Basic eA==",
        "proxy-connection": "keep-alive",
        te: "trailers",
        upgrade: "h2c",
        "x-client-kept": "1",
      },
    });
    expect(answer.status).toBe(200);
    const seen = JSON.parse(answer.body) as IncomingHttpHeaders;
    for (const name of ["keep-alive", "x-client-private", "proxy-authorization", "proxy-connection", "te", "upgrade"]) {
      expect(seen[name], name).toBeUndefined();
    }
    expect(String(seen.connection ?? "")).not.toMatch(/private|not a name/i);
    expect(seen["x-client-kept"]).toBe("1");
  });

  it("the origin's hop-by-hop headers stay with the gateway, those its Connection header names included", async ({ expect }) => {
    const answer = await send(gateway);
    expect(answer.status).toBe(200);
    for (const name of ["keep-alive", "x-origin-private", "proxy-authenticate", "proxy-connection", "upgrade", "te", "trailer"]) {
      expect(answer.headers[name], name).toBeUndefined();
    }
    expect(String(answer.headers.connection ?? "")).not.toMatch(/private|not a name/i);
    expect(answer.headers["x-origin-kept"]).toBe("1");
    expect(answer.headers["content-type"]).toBe("application/json");
  });

  it("keeps a keep-alive connection after answering a request with a body itself (404, redirect), sized or chunked", async ({ expect }) => {
    // workerd resets a connection whose request body was left unread: the client's next request on it fails.
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const body = "x".repeat(64 * 1024);
      const answers = [
        await send(gateway, { agent }),
        await send(gateway, { agent, method: "POST", host: "unknown.example.com", body }),
        await send(gateway, { agent }),
        await send(gateway, { agent, method: "PUT", path: "/moved/here", body }),
        await send(gateway, { agent }),
        await send(gateway, { agent, method: "POST", host: "unknown.example.com", body, chunked: true }),
        await send(gateway, { agent }),
      ];
      expect(answers.map((a) => a.status)).toEqual([200, 404, 200, 301, 200, 404, 200]);
      expect(answers[3]!.headers.location).toBe("http://elsewhere.example.com/moved/here");
      expect(answers.slice(1).map((a) => a.reusedSocket)).toEqual([true, true, true, true, true, true]);
    } finally {
      agent.destroy();
    }
  });

  it("keeps a keep-alive connection after a network binding's fetch threw with the body streamed to it", async ({ expect }) => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const body = "x".repeat(100 * 1024);
      const host = "private.example.com";
      const answers = [
        await send(gateway, { agent, host }),
        await send(gateway, { agent, host, method: "POST", path: "/down", body }),
        await send(gateway, { agent, host }),
        await send(gateway, { agent, host, method: "PUT", path: "/down", body, chunked: true }),
        await send(gateway, { agent, host }),
      ];
      expect(answers.map((a) => a.status)).toEqual([200, 503, 200, 503, 200]);
      expect(answers.slice(1).map((a) => a.reusedSocket)).toEqual([true, true, true, true]);
    } finally {
      agent.destroy();
    }
  });

  it("keeps a keep-alive connection after an upstream try failed with the body streamed to it; a body above 1 MiB closes it instead", async ({
    expect,
  }) => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const body = "x".repeat(100 * 1024);
      const answers = [
        await send(gateway, { agent }),
        await send(gateway, { agent, method: "POST", path: "/down", body }),
        await send(gateway, { agent }),
        await send(gateway, { agent, method: "PUT", path: "/down", body, chunked: true }),
        await send(gateway, { agent }),
      ];
      expect(answers.map((a) => a.status)).toEqual([200, 503, 200, 503, 200]);
      expect(answers.slice(1).map((a) => a.reusedSocket)).toEqual([true, true, true, true]);
      // Past the bound the gateway drains, the connection goes rather than hangs: it ends (a client still
      // writing sees it reset), and the next request, on a connection of its own, is answered.
      const ended = await new Promise<string>((resolve) => {
        const socket = connect(Number(gateway.url.port), "127.0.0.1", () => {
          socket.write(`POST /down HTTP/1.1\r\nHost: hops.example.com\r\nContent-Length: ${2 * 1024 * 1024}\r\n\r\n`);
          socket.write("x".repeat(2 * 1024 * 1024));
        });
        let answer = "";
        socket.on("data", (d: Buffer) => (answer += d.toString()));
        socket.on("error", () => undefined);
        socket.on("close", () => resolve(answer.split("\r\n")[0] ?? ""));
        setTimeout(() => socket.destroy(), 10_000);
      });
      expect(["HTTP/1.1 503 Service Unavailable", ""]).toContain(ended);
      const next = await send(gateway, { agent });
      expect(next.status).toBe(200);
    } finally {
      agent.destroy();
    }
  });
});
