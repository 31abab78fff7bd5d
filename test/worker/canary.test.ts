/**
 * A config canary served and decided by the real Worker with real KV and Durable Objects: the pointer names the
 * current version and a canary; new requests split by the canary's share, a session stays on the version it
 * started on, and one Cron run (the scheduled handler) promotes a healthy canary or reverts a failing one, after
 * which every request gets the winner and sessions on the other version follow the current table.
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, inject, it } from "vitest";
import worker from "../../src/index";
import { type CanaryPointer, type CanaryRecord, EDGE_ANALYSIS } from "../../src/table/canary";
import { canonicalJson } from "../../src/table/canonical-json";
import { KV_KEYS } from "../../src/table/kv-keys";
import type { RouteTable } from "../../src/table/route-table";
import { EDGE_YAML, infraRoute, infraYaml } from "../support/conformance-infra";
import { endpointSlice, service, yamlDocs } from "../support/manifests";
import { cronRun } from "./active-health";
import { compileYaml } from "./compile";
import { publishTable } from "./seed-table";

const NS = "gateway-conformance-infra";
const TOKEN = "status-token-for-the-canary";
/** A port nothing listens on (the canary "whose backend port has no listener"). */
const DEAD_PORT = 1;

/** A version whose Service `app` has one endpoint on `port`: `/` without sessions, `/cart` with a cookie session. */
async function version(port: number): Promise<RouteTable> {
  const app = yamlDocs(service("app", NS), endpointSlice({ service: "app", name: "app-1", namespace: NS, port }));
  const rules = `
    - matches: [{ path: { type: PathPrefix, value: /cart } }]
      sessionPersistence: { sessionName: cart, type: Cookie }
      backendRefs: [{ name: app, port: 8080 }]
    - backendRefs: [{ name: app, port: 8080 }]`;
  const { table } = await compileYaml(EDGE_YAML, { c1: [infraYaml(inject("originPorts")), app, infraRoute(rules, "shop")].join("---\n") });
  return table;
}

interface Analysis {
  windowMs?: number;
  minRequests?: number;
}

/** Publishes `current`, then `canary` beside it at `percent`: the pointer the sync writes for `sync --canary`. */
async function startCanary(current: RouteTable, canary: RouteTable, percent: number, analysis: Analysis = {}): Promise<CanaryPointer> {
  await publishTable(current);
  await env.ROUTES.put(KV_KEYS.blob(canary.name, canary.version), canonicalJson(canary));
  const startedAt = new Date();
  const spec: CanaryPointer = {
    id: `${canary.version}-${startedAt.getTime().toString(36)}${Math.random().toString(36).slice(2, 6)}`,
    version: canary.version,
    percent,
    startedAt: startedAt.toISOString(),
    by: "test",
    analysis: { windowMs: analysis.windowMs ?? 0, minRequests: analysis.minRequests ?? 20, maxErrorRateIncrease: 0.02 },
  };
  const pointer = { version: current.version, schemaVersion: current.schemaVersion, updatedAt: startedAt.toISOString(), canary: spec };
  await env.ROUTES.put(KV_KEYS.current(current.name), JSON.stringify(pointer));
  return spec;
}

async function send(path: string, headers: Record<string, string> = {}): Promise<Response> {
  const ctx = createExecutionContext();
  const response = await worker.fetch(new Request(`http://example.org${path}`, { headers }), { ...env, KEDGE_STATUS_TOKEN: TOKEN }, ctx);
  await waitOnExecutionContext(ctx);
  return response;
}

interface Answer {
  status: number;
  /** The origin that answered (infra-backend-v1 is the current version's, -v2 the canary's), or the error code. */
  by: string;
  cookie: string | null;
}

async function ask(path: string, cookie?: string): Promise<Answer> {
  const response = await send(path, cookie ? { cookie } : {});
  const body = (await response.json()) as { endpoint?: string; error?: string };
  const set = response.headers.get("set-cookie");
  return { status: response.status, by: body.endpoint ?? body.error ?? "?", cookie: set ? set.split(";")[0]! : null };
}

const tally = (answers: Answer[]) => answers.reduce<Record<string, number>>((t, a) => ({ ...t, [a.by]: (t[a.by] ?? 0) + 1 }), {});
const record = async (spec: CanaryPointer) => (await env.ROUTES.get<CanaryRecord>(KV_KEYS.canary("test", spec.id), "json"))!;

describe("a config canary at the edge", () => {
  const ports = inject("originPorts");

  it("splits new requests by the canary's share, each answered by its version's backend", async ({ expect }) => {
    await startCanary(await version(ports.v1), await version(ports.v2), 30, { minRequests: 1_000_000 });
    const answers: Answer[] = [];
    for (let i = 0; i < 400; i++) answers.push(await ask("/"));
    const counts = tally(answers);
    expect(Object.keys(counts).sort()).toEqual(["infra-backend-v1", "infra-backend-v2"]);
    // 30% of 400 is 120, with a standard deviation of about 9: ±4.4 of them.
    expect(counts["infra-backend-v2"]).toBeGreaterThanOrEqual(80);
    expect(counts["infra-backend-v2"]).toBeLessThanOrEqual(160);
  });

  it("keeps each session on the version it started on; once promoted, sessions of the old version follow the current table", async ({
    expect,
  }) => {
    const canary = await version(ports.v2);
    const spec = await startCanary(await version(ports.v1), canary, 40, { minRequests: 20 });
    const sessions: { cookie: string; by: string }[] = [];
    for (let i = 0; i < 40; i++) {
      const first = await ask("/cart");
      expect(first.cookie).toMatch(/^cart=/);
      sessions.push({ cookie: first.cookie!, by: first.by });
    }
    const started = tally(sessions.map((s) => ({ status: 200, by: s.by, cookie: null })));
    expect(started["infra-backend-v1"]).toBeGreaterThan(5);
    expect(started["infra-backend-v2"]).toBeGreaterThan(5);
    for (const s of sessions)
      for (let i = 0; i < 4; i++) {
        const again = await ask("/cart", s.cookie);
        expect(again).toEqual({ status: 200, by: s.by, cookie: null });
      }

    // The canary is healthy: one Cron run with its requests counted promotes it.
    await cronRun({ ...env });
    const decided = await record(spec);
    expect(decided.ended).toMatchObject({ outcome: "promoted", by: EDGE_ANALYSIS });
    expect(decided.figures!.canary.requests).toBeGreaterThanOrEqual(20);
    expect(decided.figures!.canary.errors).toBe(0);
    expect(tally(await Promise.all(Array.from({ length: 30 }, () => ask("/"))))).toEqual({ "infra-backend-v2": 30 });
    for (const s of sessions) {
      const after = await ask("/cart", s.cookie);
      expect(after.by).toBe("infra-backend-v2");
      // A session of the old version is balanced again on the current table, with a new token; the canary's keep theirs.
      if (s.by === "infra-backend-v1") expect(after.cookie).toMatch(/^cart=/);
      else expect(after.cookie).toBeNull();
    }
  });

  it("reverts a canary whose backend port has no listener at the first Cron run with enough requests; none fail after", async ({
    expect,
  }) => {
    const spec = await startCanary(await version(ports.v1), await version(DEAD_PORT), 25, { windowMs: 600_000, minRequests: 20 });
    const during = await Promise.all(Array.from({ length: 160 }, () => ask("/")));
    const failed = during.filter((a) => a.status >= 500);
    // Only the canary's share failed, each with a stable code.
    expect(failed.length).toBeGreaterThanOrEqual(20);
    expect(failed.length).toBeLessThanOrEqual(70);
    expect(new Set(failed.map((a) => a.by))).toEqual(new Set(["UPSTREAM_UNREACHABLE"]));
    const canarySession = (await Promise.all(Array.from({ length: 20 }, () => ask("/cart")))).find((a) => a.status >= 500 && a.cookie);

    await cronRun({ ...env });
    const decided = await record(spec);
    expect(decided.ended).toMatchObject({ outcome: "reverted", by: EDGE_ANALYSIS });
    expect(decided.verdict!.decision).toBe("revert");
    expect(decided.figures!.canary.errors).toBe(decided.figures!.canary.requests);
    expect(decided.figures!.current.errors).toBe(0);
    const after = await Promise.all(Array.from({ length: 60 }, () => ask("/")));
    expect(tally(after)).toEqual({ "infra-backend-v1": 60 });
    if (canarySession) expect((await ask("/cart", canarySession.cookie!)).by).toBe("infra-backend-v1");
  });

  it("waits while the canary has too few requests, and the status endpoint shows both versions' figures and the verdict", async ({
    expect,
  }) => {
    const spec = await startCanary(await version(ports.v1), await version(ports.v2), 50, { minRequests: 500 });
    for (let i = 0; i < 40; i++) await ask("/");
    await cronRun({ ...env });
    const waiting = await record(spec);
    expect(waiting.ended).toBeUndefined();
    expect(waiting.verdict).toMatchObject({ decision: "wait" });
    expect(waiting.verdict!.reason).toMatch(/waiting for \d+ more canary requests/);
    expect(waiting.figures!.canary.requests + waiting.figures!.current.requests).toBe(40);
    const status = await send("/.well-known/kedge/status", { authorization: `Bearer ${TOKEN}` });
    const body = (await status.json()) as { shared: { canary: CanaryRecord } };
    expect(body.shared.canary.canary.id).toBe(spec.id);
    expect(body.shared.canary.verdict!.decision).toBe("wait");
    const page = await (await send("/.well-known/kedge/status", { authorization: `Bearer ${TOKEN}`, accept: "text/html" })).text();
    expect(page).toContain(`data-canary="${spec.id}"`);
    expect(page).toMatch(/data-canary-role="canary" data-version="[0-9a-f]+" data-requests="\d+"/);
    // Both sides still served.
    expect(Object.keys(tally(await Promise.all(Array.from({ length: 40 }, () => ask("/"))))).sort()).toEqual([
      "infra-backend-v1",
      "infra-backend-v2",
    ]);
  });
});
