/**
 * Operations an operator can see and undo, through the commands as a user runs them, on local state the real
 * Worker serves: a drain shown by `kedge diff` (text and JSON) and by `kedge history`'s one line; versions named
 * by a unique prefix (and refused, naming the candidates, when too short, unknown or ambiguous); a rollback
 * beside a running `kedge sync --watch`, which is not kept waiting, is served, is not pushed over while nothing
 * changes (the watch and `kedge status` say so), and gives way once the config changes.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, it } from "vitest";
import type { LocalGateway } from "../../scripts/dev/local-gateway";
import { type Origin, startOrigin } from "../../scripts/dev/origin-server";
import { getWithHost, startGateway, Workspace } from "./harness";
import { Watcher } from "./watch-process";

const edge = (eu: string) => `apiVersion: kedge.dev/v1alpha1
kind: EdgeConfig
metadata: { name: ops }
spec: { gatewayClassName: kedge, clusters: [{ name: us }, { name: eu${eu} }] }
`;

/** One cluster's objects: the shop on `hosts`, its Service's one endpoint on `port`. */
const cluster = (port: number, hosts: string[]) => `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: { name: edge, namespace: shop }
spec:
  gatewayClassName: kedge
  listeners: [{ name: http, protocol: HTTP, port: 80 }]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: { name: web, namespace: shop }
spec:
  parentRefs: [{ name: edge }]
  hostnames: [${hosts.join(", ")}]
  rules: [{ backendRefs: [{ name: web, port: 80 }] }]
---
apiVersion: v1
kind: Service
metadata: { name: web, namespace: shop }
spec: { ports: [{ name: http, port: 80 }] }
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata: { name: web-1, namespace: shop, labels: { kubernetes.io/service-name: web } }
addressType: IPv4
ports: [{ name: http, port: ${port} }]
endpoints: [{ addresses: ["127.0.0.1"], conditions: { ready: true } }]
`;

interface HistoryJson {
  served: string;
  rolledBack?: { from: string; at: string; by: string };
  history: { version: string; summary?: string; previous?: string }[];
}

describe("operations an operator can see and undo", { timeout: 120_000 }, () => {
  const ws = new Workspace();
  const origins: Origin[] = [];
  let gateway: LocalGateway;
  let ports: { us: number; eu: number };
  /** The versions written, oldest first. */
  const versions: string[] = [];

  const history = async (): Promise<HistoryJson> => JSON.parse((await ws.kedge("history", "-o", "json")).stdout) as HistoryJson;
  const write = (eu: string, hosts = ["shop.example.com"]) =>
    ws.write({
      "kedge.yaml": edge(eu),
      "clusters/us/app.yaml": cluster(ports.us, hosts),
      "clusters/eu/app.yaml": cluster(ports.eu, hosts),
    });

  beforeAll(async () => {
    for (const c of ["us", "eu"]) origins.push(await startOrigin({ cluster: c, endpoint: `${c}-1`, backends: ["shop/web"] }));
    ports = { us: origins[0]!.port, eu: origins[1]!.port };
    write("");
    const first = await ws.sync("--json");
    if (first.code !== 0) throw new Error(`the first sync failed: ${first.stderr}`);
    versions.push((JSON.parse(first.stdout) as { table: { version: string } }).table.version);
    gateway = await startGateway(ws.state, "ops");
  }, 60_000);

  afterAll(async () => {
    await gateway?.dispose();
    await Promise.all(origins.map((o) => o.close()));
    ws.remove();
  });

  it("kedge diff shows a cluster set to Draining, in text and JSON, and exits 1; the history's line says it", async ({ expect }) => {
    write(", state: Draining");
    const text = await ws.kedge("diff");
    expect(text.code).toBe(1);
    expect(text.stdout).toMatch(/dry run: \w+ → \w+ \(nothing written\)\n {2}~ cluster eu: Serving → Draining\n$/);
    const json = await ws.kedge("diff", "-o", "json");
    expect(JSON.parse(json.stdout).dryRun.clusters).toEqual([{ cluster: "eu", state: { from: "Serving", to: "Draining" } }]);

    const synced = await ws.sync("--json");
    expect(synced.code, synced.stderr).toBe(0);
    const pushed = JSON.parse(synced.stdout) as { push: { version: string; summary: string } };
    expect(pushed.push.summary).toBe("cluster eu Draining");
    versions.push(pushed.push.version);

    const listed = await ws.kedge("history");
    expect(listed.stdout).toMatch(new RegExp(`^\\* ${versions[1]} +\\S+ +1 rule, 1 backend +cluster eu Draining$`, "m"));
    expect(listed.stdout).toMatch(new RegExp(`^ {2}${versions[0]} +\\S+ +1 rule, 1 backend +first version: 1 rule, 1 backend$`, "m"));
    const json2 = await history();
    expect(json2.history[0]).toMatchObject({ version: versions[1], summary: "cluster eu Draining", previous: versions[0] });
    // What that version changed, in full, by a prefix of its id.
    const shown = await ws.kedge("diff", versions[1]!.slice(0, 6));
    expect(shown.code).toBe(1);
    expect(shown.stdout).toBe(`table ops: ${versions[0]} → ${versions[1]}\n  ~ cluster eu: Serving → Draining\n`);
  });

  it("a version prefix too short, unknown or naming nothing kept exits 2, naming the kept versions, in text and JSON", async ({
    expect,
  }) => {
    const short = await ws.kedge("rollback", versions[0]!.slice(0, 5));
    expect(short.code).toBe(2);
    expect(short.stderr).toContain(`version prefix ${versions[0]!.slice(0, 5)} is too short: give at least 6 characters`);
    expect(short.stderr).toContain(`fix: kept versions of table ops: ${versions[1]}, ${versions[0]}`);
    const unknown = await ws.kedge("rollback", "ffffff0", "-o", "json");
    expect(unknown.code).toBe(2);
    expect(JSON.parse(unknown.stdout)).toEqual({
      error: {
        message: "no kept version of table ops starts with ffffff0",
        fix: `kept versions of table ops: ${versions[1]}, ${versions[0]}`,
      },
      exitCode: 2,
    });
    const explain = await ws.kedge("explain", "--host", "shop.example.com", "--table-version", versions[0]!.slice(0, 7), "-o", "json");
    expect(explain.code, explain.stderr).toBe(0);
  });

  it("a rollback beside a running watch is not kept waiting, is served, and is not pushed over until the config changes", async ({
    expect,
  }) => {
    // A second host in the config, pushed by the watch.
    write(", state: Draining", ["shop.example.com", "new.example.com"]);
    const watcher = new Watcher(["--config", ws.config, "--persist-to", ws.state, "--debounce", "200ms", "-o", "json"]);
    try {
      const pushed = await watcher.next((r) => r.pushed === true);
      const watched = String(pushed.table).split("@")[1]!;
      versions.push(watched);
      const port = Number(gateway.url.port);
      expect((await getWithHost(port, "new.example.com")).status).toBe(200);

      // Back to the drained version, by a prefix, while the watch runs: no wait for the watch's lock.
      const back = await ws.kedge("rollback", versions[1]!.slice(0, 8));
      expect(back.code, back.stderr).toBe(0);
      expect(back.stderr).not.toMatch(/waiting/);
      expect(back.stdout).toContain(`table ops: pointer moved ${watched} → ${versions[1]}`);
      expect(back.stdout).toContain("  - host new.example.com");
      // The Worker serves it: the host the rollback removed answers 404.
      expect((await getWithHost(port, "new.example.com")).status).toBe(404);

      // The watch says it leaves the rollback in place (a record, without waiting for a change).
      const held = await watcher.next((r) => typeof r.held === "string");
      expect(held).toMatchObject({ pushed: false, held: `rolled back by hand to ${versions[1]}` });
      const status = await ws.kedge("status");
      expect(status.stdout).toContain(`! ${versions[1]} was rolled back to by hand (from ${watched}, `);
      expect(status.stdout).toContain("`kedge sync --watch` does not push over it until the clusters or the config change");
      const statusJson = JSON.parse((await ws.kedge("status", "-o", "json")).stdout) as { served: string; rolledBack?: { from: string } };
      expect(statusJson).toMatchObject({ served: versions[1], rolledBack: { from: watched } });

      // A change that does not change the table (a comment) runs a cycle, which holds.
      const from = watcher.records.length;
      writeFileSync(join(ws.config, "clusters", "us", "note.yaml"), "# a note\n");
      const cycle = await watcher.next((r) => typeof r.cycle === "number", from);
      expect(cycle).toMatchObject({ pushed: false });
      expect((await history()).served).toBe(versions[1]);

      // The config changes: the watch pushes over the rollback, and the mark is gone.
      const next = watcher.records.length;
      write("", ["shop.example.com", "new.example.com"]);
      const over = await watcher.next((r) => r.pushed === true, next);
      const listed = await history();
      expect(listed.served).toBe(String(over.table).split("@")[1]);
      expect(listed.rolledBack).toBeUndefined();
      expect(listed.history[0]?.summary).toBe("cluster eu Serving; host new.example.com added");
      expect((await getWithHost(port, "new.example.com")).status).toBe(200);
    } finally {
      watcher.signal("SIGTERM");
      await watcher.exited;
    }
  });
});
