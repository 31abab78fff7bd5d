/**
 * `npm start` on a config folder other than the example (KEDGE_CONFIG): it starts an origin for each
 * loopback endpoint (IPv4 and IPv6) that nothing listens on yet, leaves a port the user's own app holds to
 * that app, serves the table that config names, prints curls on paths the rules match, and Ctrl-C stops all
 * of it with exit 0; a loopback endpoint a later sync adds gets its origin while it runs. A taken edge port is
 * refused with kedge's two lines, before workerd starts.
 */
import { spawn } from "node:child_process";
import { connect } from "node:net";
import { join } from "node:path";
import { afterAll, describe, it } from "vitest";
import { type EchoResponse, type Origin, startOrigin } from "../../scripts/dev/origin-server";
import { edgeConfig, endpointSlice, gatewayAndRoute, service, yamlDocs } from "../support/manifests";
import { freePort, getWithHost, ROOT, RUN_BUNDLED, Workspace } from "./harness";

const slice = (name: string, addressType: string, address: string, port: number) => `apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata: { name: ${name}-1, namespace: shop, labels: { kubernetes.io/service-name: ${name} } }
addressType: ${addressType}
ports: [{ name: http, port: ${port} }]
endpoints: [{ addresses: ["${address}"] }]
`;

/** Starts a POST that promises 100 kB, sends 10 bytes, and closes the connection once it has reached the origin. */
async function abandonUpload(port: number): Promise<void> {
  const socket = connect(port, "127.0.0.1");
  await new Promise((resolve) => socket.once("connect", resolve));
  socket.write(`POST /upload HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Length: 100000\r\n\r\n0123456789`);
  await new Promise((resolve) => setTimeout(resolve, 1000));
  socket.destroy();
  await new Promise((resolve) => setTimeout(resolve, 500));
}

describe("npm start with KEDGE_CONFIG", () => {
  const ws = new Workspace();
  let stop: (() => Promise<number | null>) | undefined;
  let userApp: Origin | undefined;

  afterAll(async () => {
    await stop?.();
    await userApp?.close();
    ws.remove();
  });

  it("serves that config's own table name, with origins on 127.0.0.1 and ::1 and behind network stand-ins, the user's app where it already listens, and stops them all on Ctrl-C with exit 0", async ({
    expect,
  }) => {
    const [edgePort, v4Port, v6Port] = [await freePort(), await freePort(), await freePort("::1")];
    // The user's own app, already listening where an EndpointSlice points: kedge leaves it the traffic.
    userApp = await startOrigin({ cluster: "user", endpoint: "my-app", backends: [] });
    // The state already serves this table from an earlier config on another host: the folder as it is now is
    // served all the same (the large-drop guard that would refuse this as a sync is for deployed edges).
    ws.write({
      "kedge.yaml": edgeConfig("elsewhere"),
      "clusters/c1/app.yaml": yamlDocs(
        gatewayAndRoute({ namespace: "shop", hostname: "earlier.example", rules: "    - backendRefs: [{ name: four, port: 8080 }]" }),
        service("four", "shop"),
      ),
    });
    const earlier = await ws.sync();
    expect(earlier.code, earlier.stderr).toBe(0);
    // c2 and c3 are reached through VPC network bindings, their one pod at the same private address.
    const privateCluster = yamlDocs(
      gatewayAndRoute({ namespace: "vault", hostname: "private.example", rules: "    - backendRefs: [{ name: pod, port: 8080 }]" }),
      service("pod", "vault"),
      endpointSlice({ service: "pod", name: "pod-1", namespace: "vault", port: 8080, addresses: ["10.1.0.7"] }),
    );
    ws.write({
      "kedge.yaml": edgeConfig("elsewhere").replace(
        "clusters: [{ name: c1 }]",
        "clusters: [{ name: c1 }, { name: c2, endpoints: { network: VPC_TWO } }, { name: c3, endpoints: { network: VPC_THREE } }]",
      ),
      "clusters/c2/app.yaml": privateCluster,
      "clusters/c3/app.yaml": privateCluster,
      "clusters/c1/app.yaml": yamlDocs(
        gatewayAndRoute({
          namespace: "shop",
          rules: `    - matches: [{ path: { type: PathPrefix, value: /six } }]
      backendRefs: [{ name: six, port: 8080 }]
    - matches: [{ path: { type: Exact, value: /mine } }]
      backendRefs: [{ name: mine, port: 8080 }]
    - backendRefs: [{ name: four, port: 8080 }]`,
        }),
        service("four", "shop"),
        service("six", "shop"),
        service("mine", "shop"),
        slice("four", "IPv4", "127.0.0.1", v4Port),
        slice("six", "IPv6", "::1", v6Port),
        slice("mine", "IPv4", "127.0.0.1", userApp.port),
      ),
    });
    // The port as `npm start -- --port N` passes it, over a PORT that says otherwise (config and state by the environment).
    const child = spawn(process.execPath, [RUN_BUNDLED, join(ROOT, "scripts/start.ts"), "--port", String(edgePort)], {
      cwd: ROOT,
      env: { ...process.env, WRANGLER_SEND_METRICS: "false", KEDGE_CONFIG: ws.config, KEDGE_PERSIST_TO: ws.state, PORT: "1" },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true, // its own process group, so the test ends exactly what it started
    });
    let output = "";
    child.stdout.on("data", (d: Buffer) => (output += d.toString()));
    child.stderr.on("data", (d: Buffer) => (output += d.toString()));
    const exited = new Promise<number | null>((resolveExit) =>
      child.on("exit", (code, signal) => {
        // Said in the output, so that an exit by a signal shows what kedge printed before it.
        if (signal) output += `\n(kedge ended by ${signal})`;
        resolveExit(code);
      }),
    );
    stop = async () => {
      if (child.exitCode === null) process.kill(-child.pid!, "SIGINT");
      return exited;
    };
    const deadline = Date.now() + 60_000;
    while (!output.includes("kedge is serving") && child.exitCode === null && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 200));
    expect(output).toContain(`kedge is serving on http://127.0.0.1:${edgePort}`);
    // What to try and how to re-sync name this config, not the example; each curl on a path its rule matches.
    expect(output).toContain(`curl http://127.0.0.1:${edgePort}/\n`);
    expect(output).toContain(`curl http://127.0.0.1:${edgePort}/six\n`);
    expect(output).toContain(`curl http://127.0.0.1:${edgePort}/mine\n`);
    expect(output).toContain(`npm run sync -- --config ${ws.config} --persist-to ${ws.state}`);
    expect(output).not.toContain("bookinfo");
    expect(output).not.toContain("refused");

    const get = async (path: string) => {
      const response = await fetch(`http://127.0.0.1:${edgePort}${path}`);
      expect(response.status, path).toBe(200);
      return (await response.json()) as EchoResponse;
    };
    expect((await get("/")).endpoint).toBe(`c1/127.0.0.1:${v4Port}`);
    expect((await get("/six/x")).endpoint).toBe(`c1/[::1]:${v6Port}`);
    expect(output).toContain(
      `127.0.0.1:${userApp.port} already has a listener: kedge sends c1/127.0.0.1:${userApp.port}'s requests to it (no local origin started there)`,
    );
    expect((await get("/mine")).endpoint).toBe("my-app");
    expect(output).toMatch(/network VPC_TWO \(local stand-in\): 10\.1\.0\.7:8080 → 127\.0\.0\.1:\d+/);
    // The same pod IP in two clusters: two origins, each behind its own cluster's stand-in.
    const reached = new Set<string>();
    for (let i = 0; i < 30; i++) {
      const answer = await getWithHost(edgePort, "private.example");
      expect(answer.status).toBe(200);
      reached.add((JSON.parse(answer.body) as EchoResponse).endpoint);
    }
    expect([...reached].sort()).toEqual(["c2/10.1.0.7:8080", "c3/10.1.0.7:8080"]);

    // A client that hangs up halfway through an upload fails the origin's read of that body; the
    // origins run in the start process, which must go on serving.
    await abandonUpload(edgePort);
    expect((await get("/")).endpoint).toBe(`c1/127.0.0.1:${v4Port}`);
    expect(child.exitCode).toBeNull();

    // A loopback endpoint added after kedge started (a sync from another terminal): its origin starts when the
    // table changes, and the edge answers it instead of 503.
    const laterPort = await freePort();
    // And one the user's second app holds, which then goes away: a 503 whose log line has no stack trace.
    const leaving = await startOrigin({ cluster: "user", endpoint: "leaving", backends: [] });
    ws.write({
      "clusters/c1/later.yaml": yamlDocs(
        `apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: { name: later, namespace: shop }
spec:
  parentRefs: [{ name: gw }]
  hostnames: [later.example]
  rules: [{ backendRefs: [{ name: later, port: 8080 }] }]
`,
        service("later", "shop"),
        slice("later", "IPv4", "127.0.0.1", laterPort),
        `apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: { name: leaving, namespace: shop }
spec:
  parentRefs: [{ name: gw }]
  hostnames: [leaving.example]
  rules: [{ backendRefs: [{ name: leaving, port: 8080 }] }]
`,
        service("leaving", "shop"),
        slice("leaving", "IPv4", "127.0.0.1", leaving.port),
      ),
    });
    const resynced = await ws.sync("--force");
    expect(resynced.code, resynced.stderr).toBe(0);
    const started = `started 1 local origin for its new loopback endpoints: c1:${laterPort}`;
    for (const until = Date.now() + 20_000; !output.includes(started) && Date.now() < until;) await new Promise((r) => setTimeout(r, 200));
    expect(output).toContain(started);
    // The Worker reads the new table within TABLE_REFRESH_SECONDS (until then the catch-all rule takes the host).
    const laterEndpoint = `c1/127.0.0.1:${laterPort}`;
    const answeredBy = async () => {
      const answer = await getWithHost(edgePort, "later.example");
      return answer.status === 200 ? (JSON.parse(answer.body) as EchoResponse).endpoint : `status ${answer.status}`;
    };
    let by = await answeredBy();
    for (const until = Date.now() + 15_000; by !== laterEndpoint && Date.now() < until; by = await answeredBy())
      await new Promise((r) => setTimeout(r, 500));
    expect(by).toBe(laterEndpoint);
    expect(output).toContain(`127.0.0.1:${leaving.port} already has a listener: kedge sends c1/127.0.0.1:${leaving.port}'s requests to it`);
    expect((await getWithHost(edgePort, "leaving.example")).status).toBe(200);
    await leaving.close();
    expect((await getWithHost(edgePort, "leaving.example")).status).toBe(503);
    // One line with its cause in words (a retry tries the endpoint again, and names it again).
    const endpoint = `c1/127\\.0\\.0\\.1:${leaving.port}`;
    const logged = new RegExp(
      `UPSTREAM_UNREACHABLE: upstream ${endpoint}(, ${endpoint})* could not be reached \\(Network connection lost\\.\\)\n`,
    );
    for (const until = Date.now() + 5000; !logged.test(output) && Date.now() < until;) await new Promise((r) => setTimeout(r, 200));
    expect(output).toMatch(logged);
    // Nothing kedge or the Worker printed was a stack trace.
    expect(output).not.toMatch(/^\s+at /m);

    // Ctrl-C reaches the whole process group, as a terminal sends it: kedge stops cleanly and exits 0.
    expect(await stop(), output.slice(-2000)).toBe(0);
    // The origins and workerd went with it; the user's app did not.
    await expect(fetch(`http://127.0.0.1:${v4Port}/`)).rejects.toThrow();
    await expect(fetch(`http://[::1]:${v6Port}/`)).rejects.toThrow();
    await expect(fetch(`http://127.0.0.1:${laterPort}/`)).rejects.toThrow();
    await expect(fetch(`http://127.0.0.1:${edgePort}/`)).rejects.toThrow();
    expect((await fetch(`http://127.0.0.1:${userApp.port}/`)).status).toBe(200);
  });

  it("refuses a taken edge port with its own error and fix, before workerd prints a trace of its own", async ({ expect }) => {
    const taken = await startOrigin({ cluster: "other", endpoint: "other", backends: [] });
    try {
      const run = await ws.kedge("dev", "--port", String(taken.port));
      expect(run.code).toBe(2);
      expect(run.stderr.trim().split("\n")).toEqual([
        `error: cannot serve kedge on 127.0.0.1:${taken.port}: something already listens there`,
        "  fix: pass --port another port, or stop what listens there",
      ]);
    } finally {
      await taken.close();
    }
  });
});
