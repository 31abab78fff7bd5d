/**
 * The store `sync` writes local state through: a host process running Miniflare (workerd), spoken to
 * over Node's IPC channel. What it writes reads back exactly, many operations in flight each get their
 * own answer, and the host never outlives the store: closed, abandoned while starting, or killed.
 */
import { execFileSync, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { fileURLToPath } from "node:url";
import { afterAll, describe, it } from "vitest";
import { CLOSE_GRACE_MS, openLocalKv } from "../../scripts/store/local-kv";
import { edgeConfig, gatewayAndRoute, service, yamlDocs } from "../support/manifests";
import { runScript, Workspace } from "./harness";

const NAMESPACE = "kedge-routes-local";
const HOST = fileURLToPath(new URL("../../scripts/store/local-kv-host.mjs", import.meta.url));

/** Live processes (the host and its workerd) in the process group a host leads; zombies are dead. */
function groupOf(host: number): number[] {
  return execFileSync("ps", ["-eo", "pgid=,pid=,stat="])
    .toString()
    .split("\n")
    .map((line) => line.trim().split(/\s+/))
    .filter(([pgid, , stat]) => Number(pgid) === host && !stat?.startsWith("Z"))
    .map(([, pid]) => Number(pid));
}

/** PIDs of local KV hosts serving `state`. */
function hostsOf(state: string): number[] {
  return execFileSync("ps", ["-eo", "pid=,args="])
    .toString()
    .split("\n")
    .filter((line) => line.includes("local-kv-host") && line.includes(state))
    .map((line) => Number.parseInt(line.trim(), 10));
}

describe("local KV store (Miniflare in a host process)", () => {
  const ws = new Workspace();
  afterAll(() => ws.remove());

  it("reads back exactly what it wrote (or its digest), answers each of many operations in flight, and null once deleted", async ({
    expect,
  }) => {
    const kv = await openLocalKv(ws.state, NAMESPACE);
    try {
      const text = `{"note":"café ✓ — ünïcode"}\nsecond line\n`;
      await kv.put("probe", text);
      expect(await kv.get("probe")).toBe(text);
      expect(await kv.get("never-written")).toBeNull();
      // Values go to workerd and back as streams of bytes: an empty one too.
      await kv.put("empty", "");
      expect(await kv.get("empty")).toBe("");

      const big = "x".repeat(5 * 2 ** 20 - 3) + "✓";
      await kv.put("big", big);
      expect(await kv.get("big")).toBe(big);

      const keys = Array.from({ length: 24 }, (_, i) => `k${i}`);
      await Promise.all(keys.map((k) => kv.put(k, `value of ${k}`)));
      expect(await Promise.all(keys.map((k) => kv.get(k)))).toEqual(keys.map((k) => `value of ${k}`));

      // Many values in bulk (written a few at a time), each told back as its UTF-8 bytes' digest, where it is.
      const entries = Array.from({ length: 30 }, (_, i): [string, string] => [`bulk/${i}`, `${i} ✓ `.repeat(1000 + i)]);
      await kv.putMany(entries);
      const digests = await kv.digestMany!([...entries.map(([key]) => key), "never-written"]);
      expect(digests).toEqual([...entries.map(([, value]) => createHash("sha256").update(value, "utf8").digest("hex")), null]);
      expect(await kv.getMany(entries.map(([key]) => key))).toEqual(entries.map(([, value]) => value));

      await kv.delete("probe");
      expect(await kv.get("probe")).toBeNull();
    } finally {
      await kv.close();
    }
  });

  it("closes by letting the host stop workerd and exit (not by the kill after the grace), and the data stays on disk", async ({
    expect,
  }) => {
    const kv = await openLocalKv(ws.state, NAMESPACE);
    await kv.put("kept", "across hosts");
    const [host] = hostsOf(ws.state);
    expect(groupOf(host!).length).toBeGreaterThanOrEqual(2); // the host and its workerd
    const started = performance.now();
    await kv.close();
    expect(performance.now() - started).toBeLessThan(CLOSE_GRACE_MS);
    expect(hostsOf(ws.state)).toEqual([]);
    expect(groupOf(host!)).toEqual([]);

    const again = await openLocalKv(ws.state, NAMESPACE);
    try {
      expect(await again.get("kept")).toBe("across hosts");
    } finally {
      await again.close();
    }
  });

  it("a store abandoned while its host starts rejects, and leaves no host behind", async ({ expect }) => {
    const abandon = new AbortController();
    const opening = openLocalKv(ws.state, NAMESPACE, abandon.signal);
    abandon.abort();
    await expect(opening).rejects.toThrow(/did not start/);
    expect(hostsOf(ws.state)).toEqual([]);
  });

  it("a host whose sync goes away at any moment of its start (even before it runs) ends itself and its workerd", async ({ expect }) => {
    // 0: before the host's code runs; then during Miniflare's load, workerd's start, and about when it is ready.
    for (const ms of [0, 150, 400, 700, 1000]) {
      const host = spawn(process.execPath, [HOST, ws.state, NAMESPACE], { stdio: ["ignore", "ignore", "pipe", "ipc"], detached: true });
      let stderr = "";
      host.stderr?.on("data", (d: Buffer) => (stderr += d.toString()));
      const exited = new Promise<number | null>((done) => host.on("exit", done));
      setTimeout(() => host.connected && host.disconnect(), ms);
      expect(await exited, `disconnected after ${ms} ms: ${stderr}`).toBe(0);
      await expect.poll(() => groupOf(host.pid!), { timeout: 5_000 }).toEqual([]);
    }
  });

  it("a host that dies fails the next operation with a message instead of hanging, and its workerd is ended", async ({ expect }) => {
    const kv = await openLocalKv(ws.state, NAMESPACE);
    const [host] = hostsOf(ws.state);
    process.kill(host!, "SIGKILL");
    await expect(kv.get("kept")).rejects.toThrow(/local KV get kept failed in .*: local KV host in .* stopped/);
    await expect.poll(() => groupOf(host!)).toEqual([]);
    await kv.close();
  });
});

describe("two syncs started together against one local state", () => {
  const a = new Workspace();
  const b = new Workspace();
  afterAll(() => {
    a.remove();
    b.remove();
  });

  it("both succeed, one after the other; the history lists both versions and the pointer names one", async ({ expect }) => {
    // Two configs of one table, each syncing into a's state folder.
    for (const [ws, backend] of [
      [a, "left"],
      [b, "right"],
    ] as const)
      ws.write({
        "kedge.yaml": edgeConfig("together"),
        "clusters/c1/app.yaml": yamlDocs(
          gatewayAndRoute({ namespace: "shop", rules: `    - backendRefs: [{ name: ${backend}, port: 8080 }]` }),
          service(backend, "shop"),
        ),
      });
    const [left, right] = await Promise.all(
      [a, b].map((ws) => runScript("scripts/sync.ts", ["--config", ws.config, "--persist-to", a.state, "--json"])),
    );
    expect([left!.code, right!.code], `${left!.stderr}\n${right!.stderr}`).toEqual([0, 0]);
    const versions = [left!, right!].map((run) => (JSON.parse(run.stdout) as { table: { version: string } }).table.version);
    // The one that waited said so, naming the other.
    expect(`${left!.stderr}${right!.stderr}`).not.toMatch(/this is a bug/);
    const history = await a.kedge("history", "--json");
    const listed = JSON.parse(history.stdout) as { served: string; history: { version: string }[] };
    expect(listed.history.map((h) => h.version).sort()).toEqual([...versions].sort());
    expect(versions).toContain(listed.served);
    expect(listed.history[0]?.version).toBe(listed.served);
  });
});
