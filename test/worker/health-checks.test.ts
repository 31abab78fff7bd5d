import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterAll, describe, inject, it } from "vitest";
import { KV_KEYS } from "../../src/table/kv-keys";
import type { HealthRecord } from "../../src/table/route-table";
import { compileYaml } from "./compile";
import { infraRoute, infraYaml } from "../support/conformance-infra";
import { endpointSlice, service, yamlDocs } from "../support/manifests";
import { dispatch } from "./dispatch";
import { cronRun, healthSwitch } from "./active-health";
import { publishTable, withDisallowedEndpoints } from "./seed-table";

/** This file's own health switch on the shared origins. */
const HEALTH = healthSwitch("health-checks");

const EDGE = `
apiVersion: kedge.dev/v1alpha1
kind: EdgeConfig
metadata: { name: test }
spec:
  gatewayClassName: kedge
  healthChecks: { path: ${HEALTH.path}, timeout: 1s, healthyThreshold: 1, unhealthyThreshold: 1 }
  clusters: [{ name: c1 }]
`;

/** Service `pair` with the v1 and v2 origins as its two endpoints. */
function pair(ports: { v1: number; v2: number }): string {
  const namespace = "gateway-conformance-infra";
  const slices = [ports.v1, ports.v2].map((port, i) => endpointSlice({ service: "pair", name: `pair-${i}`, namespace, port }));
  return yamlDocs(service("pair", namespace), ...slices);
}

async function answeredBy(count: number): Promise<string[]> {
  const seen = new Set<string>();
  for (let i = 0; i < count; i++) {
    const response = await dispatch(new Request("http://example.org/"));
    seen.add(((await response.json()) as { endpoint: string }).endpoint);
  }
  return [...seen].sort();
}

const readRecord = async () => (await env.ROUTES.get<HealthRecord>(KV_KEYS.health("test"), "json"))!;
const storeRows = () => runInDurableObject(env.HEALTH.get(env.HEALTH.idFromName("test")), (store) => store.rows());

describe("active health checks (Cron Trigger ▸ HealthStore ▸ KV)", () => {
  const ports = inject("originPorts");
  const v1 = `c1/127.0.0.1:${ports.v1}`;
  const v2 = `c1/127.0.0.1:${ports.v2}`;
  afterAll(() => Promise.all([HEALTH.set(ports.v1, 200), HEALTH.set(ports.v2, 200)]));

  async function publishPair(edge = EDGE) {
    const { table } = await compileYaml(edge, {
      c1: `${infraYaml(ports)}---\n${pair(ports)}---${infraRoute("    - backendRefs: [{ name: pair, port: 8080 }]")}`,
    });
    await publishTable(table);
    return table;
  }

  it("an endpoint failing its check gets no traffic after one run, and gets it back after it recovers", async ({ expect }) => {
    const table = await publishPair();
    expect(table.backends["Service/c1/gateway-conformance-infra/pair:8080"]?.healthCheck).toMatchObject({
      path: HEALTH.path,
      unhealthyThreshold: 1,
    });
    expect(await answeredBy(30)).toEqual(["infra-backend-v1", "infra-backend-v2"]);

    await HEALTH.set(ports.v2, 503);
    await cronRun();
    expect((await readRecord()).unhealthy).toEqual([v2]);
    // v2 still answers ordinary requests; only its health check says no, so only the check keeps traffic off it.
    expect(await answeredBy(30)).toEqual(["infra-backend-v1"]);

    await HEALTH.set(ports.v2, 200);
    await cronRun();
    expect((await readRecord()).unhealthy).toEqual([]);
    expect(await answeredBy(30)).toEqual(["infra-backend-v1", "infra-backend-v2"]);
  });

  it("writes KV only when the unhealthy set changes, and stores no row for a healthy endpoint", async ({ expect }) => {
    await publishPair();
    await cronRun();
    const first = await readRecord();
    // Quiet runs: nothing changes, nothing is written.
    await new Promise((r) => setTimeout(r, 5));
    await cronRun();
    await cronRun();
    expect((await readRecord()).updatedAt).toBe(first.updatedAt);
    expect(await storeRows()).toEqual([]);
    await HEALTH.set(ports.v1, 500);
    await cronRun();
    const changed = await readRecord();
    expect(changed.unhealthy).toEqual([v1]);
    expect(changed.updatedAt).not.toBe(first.updatedAt);
    await HEALTH.set(ports.v1, 200);
    await cronRun();
    expect(await storeRows()).toEqual([]);
  });

  it("counts failures across runs in the store: unhealthy at the threshold, healthy again after healthyThreshold passes", async ({
    expect,
  }) => {
    await publishPair(EDGE.replace("healthyThreshold: 1, unhealthyThreshold: 1", "healthyThreshold: 2, unhealthyThreshold: 2"));
    await HEALTH.set(ports.v2, 500);
    await cronRun();
    expect((await readRecord()).unhealthy).toEqual([]);
    expect(await storeRows()).toEqual([{ id: v2, healthy: 1, successes: 0, failures: 1 }]);
    await cronRun();
    expect((await readRecord()).unhealthy).toEqual([v2]);
    await HEALTH.set(ports.v2, 200);
    await cronRun();
    expect((await readRecord()).unhealthy).toEqual([v2]);
    await cronRun();
    expect((await readRecord()).unhealthy).toEqual([]);
    expect(await storeRows()).toEqual([]);
  });

  it("never probes an external endpoint outside the table's egress allow-list", async ({ expect }) => {
    const { table } = await compileYaml(EDGE, {
      c1: `${infraYaml(ports)}---\n${pair(ports)}---${infraRoute("    - backendRefs: [{ name: pair, port: 8080 }]")}`,
    });
    const pairId = "Service/c1/gateway-conformance-infra/pair:8080";
    const tampered = withDisallowedEndpoints(table, pairId, "beef2", (e) => e.port === ports.v2);
    await publishTable(tampered);
    await HEALTH.set(ports.v1, 500);
    await HEALTH.set(ports.v2, 500);
    await cronRun();
    // Both fail their check, but v2 (outside the allow-list) was never probed.
    expect((await readRecord()).unhealthy).toEqual([v1]);
    await HEALTH.set(ports.v1, 200);
    await HEALTH.set(ports.v2, 200);
  });
});
