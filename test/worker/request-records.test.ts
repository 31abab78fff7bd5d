/**
 * One record per request: a structured log line (sampled; errors always) and an Analytics Engine data
 * point on the dataset bound as KEDGE_ANALYTICS (a real local binding, watched with a spy), with the route,
 * rule, backend, cluster, endpoint, status, tries, upstream time and session outcome.
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, inject, it, vi } from "vitest";
import { createApp } from "../../src/worker/app";
import type { DataPoint, RequestRecord } from "../../src/worker/request-record";
import { infraRoute, infraYaml } from "../support/conformance-infra";
import { seedYaml } from "./seed-table";

const app = createApp();

async function send(path: string, vars: Record<string, string> = {}, headers: Record<string, string> = {}): Promise<Response> {
  const ctx = createExecutionContext();
  const response = await app.fetch(new Request(`http://example.org${path}`, { headers }), { ...env, ...vars }, ctx);
  await waitOnExecutionContext(ctx);
  return response;
}

const RULES = `    - matches: [{ path: { type: PathPrefix, value: /sticky } }]
      sessionPersistence: { sessionName: s }
      backendRefs: [{ name: infra-backend-v2, port: 8080 }]
    - matches: [{ path: { type: PathPrefix, value: /down } }]
      backendRefs: [{ name: infra-backend-v3, port: 9 }]
    - backendRefs: [{ name: infra-backend-v1, port: 8080 }]`;

const logged = (spy: { mock: { calls: unknown[][] } }): RequestRecord[] =>
  spy.mock.calls
    .map((args: unknown[]) => String(args[0]))
    .filter((line: string) => line.startsWith('{"kedge":"request"'))
    .map((line: string) => JSON.parse(line) as RequestRecord);

afterEach(() => vi.restoreAllMocks());

describe("request records", () => {
  it("with KEDGE_LOG_SAMPLE=1 every request is one JSON line naming where it went", async ({ expect }) => {
    const table = await seedYaml(`${infraYaml(inject("originPorts"))}---${infraRoute(RULES)}`);
    const log = vi.spyOn(console, "log");
    const first = await send("/sticky/a", { KEDGE_LOG_SAMPLE: "1" });
    const cookie = (first.headers.get("set-cookie") ?? "").split(";")[0]!;
    await send("/sticky/b", { KEDGE_LOG_SAMPLE: "1" }, { cookie });
    await send("/plain", { KEDGE_LOG_SAMPLE: "1" });
    const [newSession, resumed, plain] = logged(log);
    expect(newSession).toMatchObject({
      method: "GET",
      host: "example.org",
      table: `test@${table.version}`,
      route: "gateway-conformance-infra/r",
      rule: "c1/gateway-conformance-infra/r/rule/0",
      backend: "Service/c1/gateway-conformance-infra/infra-backend-v2:8080",
      cluster: "c1",
      endpoint: `c1/127.0.0.1:${inject("originPorts").v2}`,
      status: 200,
      tries: 1,
      session: "new",
    });
    expect(newSession!.upstreamMs).toBeGreaterThanOrEqual(0);
    expect(resumed).toMatchObject({ session: "resumed", status: 200 });
    expect(plain).toMatchObject({ rule: "c1/gateway-conformance-infra/r/rule/2", status: 200 });
    expect(plain!.session).toBeUndefined();
  });

  it("by default only errors are logged, each with its code", async ({ expect }) => {
    await seedYaml(`${infraYaml(inject("originPorts"))}---${infraRoute(RULES)}`);
    const log = vi.spyOn(console, "log");
    expect((await send("/plain")).status).toBe(200);
    expect((await send("/down")).status).toBe(500);
    expect(logged(log).map((r) => [r.status, r.error])).toEqual([[500, "BACKEND_NOT_RESOLVED"]]);
  });

  it("writes one data point per request to the bound Analytics Engine dataset", async ({ expect }) => {
    await seedYaml(`${infraYaml(inject("originPorts"))}---${infraRoute(RULES)}`);
    const dataset = (env as unknown as { KEDGE_ANALYTICS: { writeDataPoint(p: DataPoint): void } }).KEDGE_ANALYTICS;
    const write = vi.spyOn(dataset, "writeDataPoint");
    await send("/plain");
    await send("/nothing-here", {}, { host: "other.example" });
    expect(write).toHaveBeenCalledTimes(2);
    const [point] = write.mock.calls[0]!;
    expect(point.blobs.slice(0, 6)).toEqual([
      "example.org",
      "gateway-conformance-infra/r",
      "c1/gateway-conformance-infra/r/rule/2",
      "Service/c1/gateway-conformance-infra/infra-backend-v1:8080",
      "c1",
      `c1/127.0.0.1:${inject("originPorts").v1}`,
    ]);
    expect(point.doubles.slice(0, 1)).toEqual([200]);
  });
});
