/**
 * Gateway API v1.7 through `npm start` on a config folder of its own (KEDGE_CONFIG), as a user runs it: an
 * XBackend whose own `sessionPersistence` issues a cookie that pins the client (its host a loopback origin,
 * which `egress.allowLocalhost` permits), and `retry.attempts: 0` sending a failing request once, counted at
 * the origin (left out, one retry). (Ctrl-C's exit 0 is start-command.test.ts's to hold.)
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { afterAll, describe, it } from "vitest";
import { type EchoResponse, type Origin, startOrigin } from "../../scripts/dev/origin-server";
import { edgeConfig, endpointSlice, gatewayAndRoute, service, yamlDocs } from "../support/manifests";
import { freePort, ROOT, RUN_BUNDLED, Workspace } from "./harness";

describe("npm start with a Gateway API v1.7 config", () => {
  const ws = new Workspace();
  const origins: Origin[] = [];
  let stop: (() => Promise<number | null>) | undefined;

  afterAll(async () => {
    await stop?.();
    await Promise.all(origins.map((o) => o.close()));
    ws.remove();
  });

  /** Starts `npm start` on the workspace and waits until it serves; answers its port. */
  async function start(): Promise<number> {
    const port = await freePort();
    const child = spawn(process.execPath, [RUN_BUNDLED, join(ROOT, "scripts/start.ts")], {
      cwd: ROOT,
      env: { ...process.env, WRANGLER_SEND_METRICS: "false", KEDGE_CONFIG: ws.config, KEDGE_PERSIST_TO: ws.state, PORT: String(port) },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true, // its own process group, so the test ends exactly what it started
    });
    let output = "";
    child.stdout.on("data", (d: Buffer) => (output += d.toString()));
    child.stderr.on("data", (d: Buffer) => (output += d.toString()));
    const exited = new Promise<number | null>((resolveExit) => child.on("exit", (code) => resolveExit(code)));
    stop = async () => {
      if (child.exitCode === null) process.kill(-child.pid!, "SIGINT");
      return exited;
    };
    const deadline = Date.now() + 60_000;
    while (!output.includes("kedge is serving") && child.exitCode === null && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 200));
    if (!output.includes("kedge is serving")) throw new Error(`npm start did not serve:\n${output}`);
    return port;
  }

  it("an XBackend's cookie pins the client to it; attempts 0 sends once, attempts left out twice", async ({ expect }) => {
    const [partner, service1, flaky] = await Promise.all(
      ["partner", "service-1", "flaky"].map((name) => startOrigin({ cluster: "c1", endpoint: name, backends: [name] })),
    );
    origins.push(partner!, service1!, flaky!);
    const toPartner = "{ group: gateway.networking.x-k8s.io, kind: XBackend, name: partner }";
    ws.write({
      "kedge.yaml": edgeConfig("v17").replace("clusters:", "egress: { allowLocalhost: true }, clusters:"),
      "clusters/c1/app.yaml": yamlDocs(
        gatewayAndRoute({
          namespace: "shop",
          rules: `    - matches: [{ path: { type: PathPrefix, value: /partner } }]
      backendRefs: [${toPartner}, { name: plain, port: 8080 }]
    - matches: [{ path: { type: PathPrefix, value: /once } }]
      retry: { codes: [500], attempts: 0 }
      backendRefs: [{ name: flaky, port: 8080 }]
    - matches: [{ path: { type: PathPrefix, value: /twice } }]
      retry: { codes: [500] }
      backendRefs: [{ name: flaky, port: 8080 }]`,
        }),
        `apiVersion: gateway.networking.x-k8s.io/v1alpha1
kind: XBackend
metadata: { name: partner, namespace: shop }
spec:
  type: ExternalHostname
  externalHostname: { hostname: localhost }
  port: { port: ${partner!.port} }
  tls: { mode: None }
  sessionPersistence: { type: Cookie, cookie: { name: partner-session } }
`,
        service("plain", "shop"),
        endpointSlice({ service: "plain", name: "plain-1", namespace: "shop", port: service1!.port }),
        service("flaky", "shop"),
        endpointSlice({ service: "flaky", name: "flaky-1", namespace: "shop", port: flaky!.port }),
      ),
    });
    const port = await start();
    const get = (path: string, headers: Record<string, string> = {}) => fetch(`http://127.0.0.1:${port}${path}`, { headers });

    // Balanced until a response comes from the XBackend's origin; every response carries the XBackend's cookie.
    let cookie: string | undefined;
    for (let i = 0; i < 60 && !cookie; i++) {
      const response = await get("/partner");
      expect(response.status).toBe(200);
      const setCookie = response.headers.get("set-cookie");
      expect(setCookie).toMatch(/^partner-session=[^;]+; Path=\/; HttpOnly; SameSite=Strict$/);
      if (((await response.json()) as EchoResponse).endpoint === "partner") cookie = setCookie!.split(";")[0];
    }
    expect(cookie).toBeDefined();
    const before = partner!.count();
    for (let i = 0; i < 20; i++) {
      const response = await get("/partner", { cookie: cookie! });
      expect(response.headers.get("set-cookie")).toBeNull();
      expect(((await response.json()) as EchoResponse).endpoint).toBe("partner");
    }
    expect(partner!.count() - before).toBe(20);

    const sends = async (path: string) => {
      const counted = flaky!.count();
      const response = await get(path);
      await response.arrayBuffer();
      return { status: response.status, sends: flaky!.count() - counted };
    };
    expect(await sends("/once?status=500")).toEqual({ status: 500, sends: 1 });
    expect(await sends("/twice?status=500")).toEqual({ status: 500, sends: 2 });
  });
});
