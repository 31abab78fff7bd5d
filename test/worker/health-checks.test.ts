import { createExecutionContext, createScheduledController, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterAll, describe, inject, it } from "vitest";
import worker from "../../src/index";
import { KV_KEYS } from "../../src/table/kv-keys";
import { compileYaml } from "../support/compile-fixture";
import { infraRoute, infraYaml } from "../support/conformance-infra";
import { endpointSlice, service, yamlDocs } from "../support/manifests";
import { dispatch } from "./dispatch";
import { publishTable, withDisallowedEndpoints } from "./seed-table";

const EDGE = `
apiVersion: kedge.dev/v1alpha1
kind: EdgeConfig
metadata: { name: test }
spec:
  gatewayClassName: kedge
  healthChecks: { path: /__origin/health, timeout: 1s, healthyThreshold: 1, unhealthyThreshold: 1 }
  clusters: [{ name: c1 }]
`;

/** Service `pair` with the v1 and v2 origins as its two endpoints. */
function pair(ports: { v1: number; v2: number }): string {
  const namespace = "gateway-conformance-infra";
  const slices = [ports.v1, ports.v2].map((port, i) => endpointSlice({ service: "pair", name: `pair-${i}`, namespace, port }));
  return yamlDocs(service("pair", namespace), ...slices);
}

const setHealth = (port: number, status: number) =>
  fetch(`http://127.0.0.1:${port}/__origin/health?set=${status}`).then((r) => r.arrayBuffer());

async function cronRun(): Promise<void> {
  const ctx = createExecutionContext();
  await worker.scheduled(createScheduledController(), env, ctx);
  await waitOnExecutionContext(ctx);
}

async function answeredBy(count: number): Promise<string[]> {
  const seen = new Set<string>();
  for (let i = 0; i < count; i++) {
    const response = await dispatch(new Request("http://example.org/"));
    seen.add(((await response.json()) as { endpoint: string }).endpoint);
  }
  return [...seen].sort();
}

describe("active health checks (Cron Trigger)", () => {
  const ports = inject("originPorts");
  afterAll(() => setHealth(ports.v2, 200));

  it("an endpoint failing its check gets no traffic after one run, and gets it back after it recovers", async ({ expect }) => {
    const { table } = await compileYaml(EDGE, {
      c1: `${infraYaml(ports)}---\n${pair(ports)}---${infraRoute("    - backendRefs: [{ name: pair, port: 8080 }]")}`,
    });
    expect(table.backends["Service/c1/gateway-conformance-infra/pair:8080"]?.healthCheck).toMatchObject({
      path: "/__origin/health",
      unhealthyThreshold: 1,
    });
    await publishTable(table);
    expect(await answeredBy(30)).toEqual(["infra-backend-v1", "infra-backend-v2"]);

    await setHealth(ports.v2, 503);
    await cronRun();
    const health = JSON.parse((await env.ROUTES.get(KV_KEYS.health("test"))) ?? "{}") as {
      endpoints: Record<string, { healthy: boolean }>;
    };
    expect(health.endpoints[`c1/127.0.0.1:${ports.v2}`]?.healthy).toBe(false);
    expect(health.endpoints[`c1/127.0.0.1:${ports.v1}`]?.healthy).toBe(true);
    // v2 still answers ordinary requests; only its health check says no, so only the check keeps traffic off it.
    expect(await answeredBy(30)).toEqual(["infra-backend-v1"]);

    await setHealth(ports.v2, 200);
    await cronRun();
    expect(await answeredBy(30)).toEqual(["infra-backend-v1", "infra-backend-v2"]);
  });

  it("never probes an external endpoint outside the table's egress allow-list", async ({ expect }) => {
    const { table } = await compileYaml(EDGE, {
      c1: `${infraYaml(ports)}---\n${pair(ports)}---${infraRoute("    - backendRefs: [{ name: pair, port: 8080 }]")}`,
    });
    const pairId = "Service/c1/gateway-conformance-infra/pair:8080";
    const tampered = withDisallowedEndpoints(table, pairId, "beef2", (e) => e.port === ports.v2);
    await env.ROUTES.delete(KV_KEYS.health("test"));
    await publishTable(tampered);
    await cronRun();
    const health = JSON.parse((await env.ROUTES.get(KV_KEYS.health("test"))) ?? "{}") as { endpoints: Record<string, unknown> };
    expect(Object.keys(health.endpoints)).toEqual([`c1/127.0.0.1:${ports.v1}`]);
  });
});
