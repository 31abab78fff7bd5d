/**
 * Every cluster counts, end to end through the documented commands: three clusters whose copies of one route
 * drift during a rollout (one says 80/20 where the others say 90/10), `kedge sync` ▸ the Worker in workerd ▸
 * one loopback origin per endpoint. Every cluster's endpoints keep serving under the served copy, the reports
 * and `kedge status` account for every cluster, and a cluster that contributes nothing is said with its cause.
 */
import { afterAll, beforeAll, describe, it } from "vitest";
import type { LocalGateway } from "../../scripts/dev/local-gateway";
import type { Origin } from "../../scripts/dev/origin-server";
import { endpointSlice, gatewayAndRoute, service, yamlDocs } from "../support/manifests";
import { runScript, startGateway, startOrigins, tally, tearDown, Workspace } from "./harness";

const EDGE = `apiVersion: kedge.dev/v1alpha1
kind: EdgeConfig
metadata: { name: counts }
spec:
  gatewayClassName: kedge
  clusters: [{ name: us }, { name: eu }, { name: ap }, { name: sa }]
`;

const CLUSTERS = ["us", "eu", "ap"] as const;

/** The route as a GitOps rollout leaves it: `v1`/`v2` weights, created at `created`. */
const route = (v1: number, v2: number, created: string) =>
  gatewayAndRoute({
    namespace: "shop",
    hostname: "shop.example.com",
    rules: `    - backendRefs: [{ name: web-v1, port: 8080, weight: ${v1} }, { name: web-v2, port: 8080, weight: ${v2} }]`,
  }).replace("metadata: { name: web, namespace: shop }", `metadata: { name: web, namespace: shop, creationTimestamp: "${created}" }`);

describe("every cluster counts: a drifted route copy ▸ sync ▸ Worker ▸ every cluster's origins", () => {
  const ws = new Workspace();
  const origins: Record<string, Origin> = {};
  let gateway: LocalGateway;
  let synced: string;

  beforeAll(async () => {
    for (const cluster of CLUSTERS) Object.assign(origins, await startOrigins([`${cluster}-v1`, `${cluster}-v2`], cluster));
    const cluster = (name: string, weights: [number, number], created: string) =>
      yamlDocs(
        route(...weights, created),
        service("web-v1", "shop"),
        service("web-v2", "shop"),
        endpointSlice({ service: "web-v1", name: "web-v1", namespace: "shop", port: origins[`${name}-v1`]!.port }),
        endpointSlice({ service: "web-v2", name: "web-v2", namespace: "shop", port: origins[`${name}-v2`]!.port }),
      );
    ws.write({
      "kedge.yaml": EDGE,
      "clusters/us/app.yaml": cluster("us", [90, 10], "2026-01-01T00:00:00Z"),
      "clusters/eu/app.yaml": cluster("eu", [90, 10], "2026-01-02T00:00:00Z"),
      // The rollout reached this cluster first: its copy says 80/20.
      "clusters/ap/app.yaml": cluster("ap", [80, 20], "2026-01-03T00:00:00Z"),
      // A configured cluster whose folder is empty.
      "clusters/sa/.keep": "",
    });
    const run = await ws.sync();
    if (run.code !== 0) throw new Error(`sync exited ${run.code}: ${run.stderr}${run.stdout}`);
    synced = run.stdout;
    gateway = await startGateway(ws.state, "counts");
  });

  afterAll(() => tearDown({ gateway, origins, ws }));

  it("serves the oldest copy's spec, with the drifted cluster's endpoints serving under it", async ({ expect }) => {
    const counts = await tally(gateway, "shop.example.com", "/", 240);
    const byCluster = (cluster: string) => (counts[`${cluster}-v1`] ?? 0) + (counts[`${cluster}-v2`] ?? 0);
    // Each cluster takes about a third; none is left out (the drifted one got 0 of 240 before).
    for (const cluster of CLUSTERS) expect(byCluster(cluster), cluster).toBeGreaterThan(40);
    // The served split is the oldest copy's 90/10.
    const v2 = CLUSTERS.reduce((n, c) => n + (counts[`${c}-v2`] ?? 0), 0);
    expect(v2).toBeGreaterThan(5);
    expect(v2).toBeLessThan(45);
  });

  it("the report names the served copy, the drifted copy's field, and what every cluster contributes", ({ expect }) => {
    expect(synced).toContain(
      "HTTPRoute shop/web spec.rules[0].backendRefs[0].weight: Conflicted: this copy differs from the copy in cluster us (older, served) at spec.rules[0].backendRefs[0].weight",
    );
    expect(synced).toMatch(/parent shop\/gw: Accepted=True {2}ResolvedRefs=True {2}Conflicted=True/);
    expect(synced).toContain("clusters:\n  us  Serving; 1 route, 2 Services, 2 of 2 endpoints ready\n");
    expect(synced).toContain("  ap  Serving; 1 route, 2 Services, 2 of 2 endpoints ready\n");
    expect(synced).toContain("  sa  Serving; 0 routes, 0 Services, 0 of 0 endpoints ready; no traffic: no objects were read from it");
    expect(synced).toContain("! Cluster sa: NoTraffic: cluster sa gets no traffic: no objects were read from it");
  });

  it("kedge status and -o json account for every configured cluster, zero included", async ({ expect }) => {
    const status = await ws.kedge("status");
    expect(status.code).toBe(0);
    for (const cluster of CLUSTERS) expect(status.stdout).toContain(`cluster ${cluster}: 2 of 2 endpoints ready; 1 route, 2 Services`);
    expect(status.stdout).toContain("cluster sa: 0 of 0 endpoints ready; 0 routes, 0 Services; no traffic: no objects were read from it");
    const validate = await runScript("scripts/cli/main.ts", ["validate", "--config", ws.config, "-o", "json"]);
    const data = JSON.parse(validate.stdout) as { clusters: { name: string; routes: number; readyEndpoints: number; idle?: string }[] };
    expect(data.clusters.map((c) => [c.name, c.routes, c.readyEndpoints, c.idle ?? null])).toEqual([
      ["us", 1, 2, null],
      ["eu", 1, 2, null],
      ["ap", 1, 2, null],
      ["sa", 0, 0, expect.stringContaining("no objects were read")],
    ]);
  });
});
