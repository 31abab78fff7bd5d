/**
 * The controller's parts in-process: its flags (each mistake exit 2 with one line and its fix, never a
 * stack), bind addresses as controller-runtime takes them, the probe and metrics endpoints, /healthz failing
 * for a stuck watch stream, and a periodic relist telling the change its watch missed.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "vitest";
import { runCli } from "../../scripts/cli/program";
import { parseBindAddress, serveEndpoints } from "../../scripts/controller/endpoints";
import { healthProblems } from "../../scripts/controller/health";
import { ClusterWatch, WATCH_SILENCE_LIMIT_MS } from "../../scripts/kube/cluster-watch";
import { KubeStandIn, kubeconfigFor } from "../support/kube-api-stand-in";
import { kedgeClass, resource } from "../support/stand-in-resources";

async function kedge(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, { out: (t) => out.push(t), err: (t) => err.push(t) });
  return { code, out: out.join("\n"), err: err.join("\n") };
}

describe("the controller's flags", () => {
  it.for([
    [
      ["--leader-elect"],
      "error: --leader-elect is a flag of the running controller: it needs --watch",
      "kedge sync --watch --leader-elect",
    ],
    [
      ["--watch", "--leader-elect-namespace", "ns"],
      "--leader-elect-namespace sets up leader election: it needs --leader-elect",
      "add --leader-elect",
    ],
    [
      ["--watch", "--metrics-bind-address", "8080"],
      '--metrics-bind-address "8080" is not an address to listen on',
      ":8080 (every interface)",
    ],
    [
      ["--watch", "--health-probe-bind-address", "localhost:99999"],
      '--health-probe-bind-address "localhost:99999" is not an address',
      "0 to serve none",
    ],
    [
      ["--watch", "--leader-elect", "--leader-elect-lease-duration", "5s"],
      "--leader-elect-lease-duration must be longer than --leader-elect-renew-deadline (now 5s, 10s and 2s)",
      "client-go's defaults hold",
    ],
    [
      ["--watch", "--leader-elect", "--leader-elect-retry-period", "abc"],
      '--leader-elect-retry-period "abc" is not a duration',
      "for example",
    ],
    [["--watch", "--resync-period", "0s"], '--resync-period "0s" is not a duration from 1ms to 24h', "for example --resync-period 2s"],
  ] as const)("sync %j: exit 2, %s", async ([args, message, fix], { expect }) => {
    const run = await kedge("sync", "--config", "/nonexistent-kedge-config", ...args);
    expect(run.code).toBe(2);
    expect(run.err).toContain(message);
    expect(run.err).toContain(`fix: `);
    expect(run.err).toContain(fix);
    expect(run.err).not.toMatch(/\n\s+at /);
  });

  it("takes bind addresses as Go's net.Listen does, and 0 for none", ({ expect }) => {
    expect(parseBindAddress("0", "--f")).toBeNull();
    expect(parseBindAddress(":8080", "--f")).toEqual({ port: 8080, text: ":8080" });
    expect(parseBindAddress("127.0.0.1:8081", "--f")).toEqual({ host: "127.0.0.1", port: 8081, text: "127.0.0.1:8081" });
    expect(parseBindAddress("[::1]:9000", "--f")).toEqual({ host: "::1", port: 9000, text: "[::1]:9000" });
    expect(parseBindAddress("localhost:0", "--f")).toMatchObject({ host: "localhost", port: 0 });
  });

  it("lists the flags in sync --help with their defaults", async ({ expect }) => {
    const help = await kedge("sync", "--help");
    for (const flag of [
      "--leader-elect ",
      "--leader-elect-namespace <namespace>",
      "--leader-elect-context <context>",
      "--resync-period <duration>",
    ])
      expect(help.out).toContain(flag);
    expect(help.out).toMatch(/--leader-elect-lease-duration <duration>\s+.*\(default: 15s\)/s);
    expect(help.out).toMatch(/--metrics-bind-address <address>[\s\S]*\(default: 0, none\)/);
  });
});

describe("the probe and metrics endpoints", () => {
  it("answer /healthz, /readyz and /metrics on one address when both flags name it, 404 elsewhere", async ({ expect }) => {
    let problems = ["cluster x: stuck"];
    let ready: string | null = "no table published yet";
    const at = parseBindAddress("127.0.0.1:0", "--f");
    const served = await serveEndpoints(
      { metrics: at, probes: at },
      {
        metrics: async () => ({ contentType: "text/plain; version=0.0.4", body: "m 1\n" }),
        health: () => problems,
        readiness: () => ready,
      },
    );
    try {
      const get = async (path: string) => {
        const r = await fetch(served.urls[path.slice(1)] ?? `${served.urls.metrics!.replace("/metrics", "")}${path}`);
        return `${r.status} ${await r.text()}`;
      };
      expect(await get("/healthz")).toBe("500 [-]cluster x: stuck\nhealthz check failed\n");
      expect(await get("/readyz")).toBe("500 [-]no table published yet\nreadyz check failed\n");
      problems = [];
      ready = null;
      expect(await get("/healthz")).toBe("200 ok\n");
      expect(await get("/readyz")).toBe("200 ok\n");
      expect(await get("/metrics")).toBe("200 m 1\n");
      expect(await get("/other")).toMatch(/^404 /);
    } finally {
      await served.close();
    }
  });

  it("a port in use is exit 2 naming the flag", async ({ expect }) => {
    const first = await serveEndpoints(
      { metrics: parseBindAddress("127.0.0.1:0", "--f"), probes: null },
      {
        metrics: async () => ({ contentType: "text/plain", body: "" }),
        health: () => [],
        readiness: () => null,
      },
    );
    const port = new URL(first.urls.metrics!).port;
    try {
      await expect(
        serveEndpoints(
          { metrics: parseBindAddress(`127.0.0.1:${port}`, "--metrics-bind-address"), probes: null },
          {
            metrics: async () => ({ contentType: "", body: "" }),
            health: () => [],
            readiness: () => null,
          },
        ),
      ).rejects.toThrow(`--metrics-bind-address 127.0.0.1:${port}: cannot listen there (EADDRINUSE: the port is in use)`);
    } finally {
      await first.close();
    }
  });
});

describe("watches that cannot die quietly", () => {
  it("a periodic relist finds and tells a change the watch missed; /healthz names a stream silent past its limit", async ({ expect }) => {
    const s = await KubeStandIn.start([kedgeClass(), resource("HTTPRoute", [{ metadata: { name: "a", namespace: "shop" }, spec: {} }])], {
      token: "t",
    });
    const file = join(mkdtempSync(join(tmpdir(), "kedge-resync-")), "kubeconfig.json");
    writeFileSync(file, kubeconfigFor({ east: s.url }, "t"));
    const notes: string[] = [];
    const w = new ClusterWatch(
      {
        name: "east",
        kubeContext: "east",
        kubeconfig: file,
        weight: 1,
        state: "Serving",
        priority: 0,
        endpoints: { from: "EndpointSlice", scheme: "http" },
      },
      () => undefined,
      { resyncMs: 300, note: (line) => notes.push(line) },
    );
    try {
      w.start(() => undefined);
      const until = async (test: () => boolean) => {
        const end = Date.now() + 8000;
        while (!test() && Date.now() < end) await new Promise((r) => setTimeout(r, 25));
        return test();
      };
      expect(await until(() => w.listed)).toBe(true);
      s.apply("httproutes", { metadata: { name: "b", namespace: "shop" }, spec: {} }, true);
      expect(await until(() => w.missedChanges > 0)).toBe(true);
      expect(notes[0]).toMatch(
        /^! cluster east: the periodic relist found 1 HTTPRoute change its watch had missed \(shop\/b\); the snapshot has them now$/,
      );
      expect(w.counts().get("HTTPRoute")).toBe(2);
      const now = Date.now();
      expect(healthProblems({ watches: () => [w], staleAfterMs: 600_000, now: () => now })).toEqual([]);
      const later = now + WATCH_SILENCE_LIMIT_MS + 1000;
      expect(healthProblems({ watches: () => [w], staleAfterMs: 10 * 60 * 60_000, now: () => later })[0]).toMatch(
        /^cluster east: a watch stream has delivered nothing for \d+ s \(its timeout and margin are 360 s\)$/,
      );
    } finally {
      w.stop();
      await s.close();
    }
  });
});
