/**
 * The table loader against the real Worker and KV: no request waits on a refresh another request started.
 * A KV read that never settles stands for the continuation Workers cancel when the request that started it
 * goes away; the request carrying it is abandoned (its waitUntil work is never waited for).
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, inject, it } from "vitest";
import worker from "../../src/index";
import type { Env } from "../../src/worker/env";
import { compileYaml } from "./compile";
import { infraRoute, infraYaml } from "../support/conformance-infra";
import { publishTable } from "./seed-table";

const edge = (name: string) => `
apiVersion: kedge.dev/v1alpha1
kind: EdgeConfig
metadata: { name: ${name} }
spec: { gatewayClassName: kedge, clusters: [{ name: c1 }] }
`;

async function publishTo(name: string, backend: "v1" | "v2"): Promise<void> {
  const { table } = await compileYaml(edge(name), {
    c1: `${infraYaml(inject("originPorts"))}---${infraRoute(`    - backendRefs: [{ name: infra-backend-${backend}, port: 8080 }]`)}`,
  });
  await publishTable(table);
}

/** KV whose every read hangs. */
const HUNG_KV = { get: () => new Promise(() => {}) } as unknown as KVNamespace;

const bindings = (name: string, kv: KVNamespace = env.ROUTES): Env => ({
  ...env,
  KEDGE_TABLE: name,
  TABLE_REFRESH_SECONDS: "1",
  ROUTES: kv,
});

/** Sends a request and waits for it and its waitUntil work. */
async function send(name: string): Promise<{ status: number; endpoint?: string; error?: string }> {
  const ctx = createExecutionContext();
  const response = await worker.fetch(new Request("http://example.org/"), bindings(name), ctx);
  await waitOnExecutionContext(ctx);
  const body = (await response.json()) as { endpoint?: string; error?: string };
  return { status: response.status, ...body };
}

/** A request whose KV reads hang, abandoned once it answers; resolves to its status, or "stalled" after 1 s. */
async function sendAbandoned(name: string): Promise<number | "stalled"> {
  const answer = worker.fetch(new Request("http://example.org/"), bindings(name, HUNG_KV), createExecutionContext());
  const stalled = new Promise<"stalled">((resolve) => setTimeout(() => resolve("stalled"), 1000));
  const first = await Promise.race([answer, stalled]);
  return first === "stalled" ? first : first.status;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("a table loader no request can stall", { timeout: 30_000 }, () => {
  it("a request whose refresh hangs is answered from the table in memory; the next requests are too, and a new version arrives", async ({
    expect,
  }) => {
    await publishTo("loader-warm", "v1");
    expect(await send("loader-warm")).toMatchObject({ status: 200, endpoint: "infra-backend-v1" });
    await sleep(1100);
    // Due for a refresh: this request starts it (and it never settles), but is answered at once.
    expect(await sendAbandoned("loader-warm")).toBe(200);
    await publishTo("loader-warm", "v2");
    // The hung refresh holds its slot: the next requests are served from memory, not held behind it.
    for (let i = 0; i < 5; i++) expect(await send("loader-warm")).toMatchObject({ status: 200, endpoint: "infra-backend-v1" });
    // Once the hung read has had its bound, a request refreshes again and the new version is served.
    await expect.poll(async () => (await send("loader-warm")).endpoint, { timeout: 8000, interval: 250 }).toBe("infra-backend-v2");
  });

  it("a cold isolate whose first read hangs answers 503 within the bound; the next request with a working KV is served", async ({
    expect,
  }) => {
    await publishTo("loader-cold", "v1");
    const started = Date.now();
    const ctx = createExecutionContext();
    const response = await worker.fetch(new Request("http://example.org/"), bindings("loader-cold", HUNG_KV), ctx);
    expect(response.status).toBe(503);
    expect(await response.json()).toMatchObject({ error: "ROUTE_TABLE_UNAVAILABLE" });
    expect(Date.now() - started).toBeLessThan(6000);
    await expect.poll(async () => (await send("loader-cold")).status, { timeout: 5000, interval: 250 }).toBe(200);
  });
});
