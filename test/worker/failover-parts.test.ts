/** The pure parts of failover: retry backoff, the retry budget, probe turns and concurrency, retry endpoint choice. */
import { describe, it } from "vitest";
import { failoverEndpoint, pickEndpoint } from "../../src/routing/endpoint-pool";
import { prepareTable } from "../../src/routing/prepared-table";
import { dueThisRun, inTurns, PROBE_CONCURRENCY } from "../../src/worker/health-checks";
import { HealthView } from "../../src/worker/health-view";
import { RetryBudget } from "../../src/worker/retry-budget";
import { backoffDelay } from "../../src/worker/upstream";
import { compileYaml } from "./compile";
import { endpointSlice, gatewayAndRoute, service, yamlDocs } from "../support/manifests";

describe("retry backoff", () => {
  it("grows exponentially from backoff, is capped at 10x, and jitters up to as much again, never below backoff", ({ expect }) => {
    expect([0, 1, 2, 3].map((n) => backoffDelay(25, n, 0))).toEqual([25, 50, 100, 200]);
    expect(backoffDelay(25, 10, 0)).toBe(250);
    expect(backoffDelay(25, 2, 0.5)).toBe(150);
    for (let n = 0; n < 8; n++) expect(backoffDelay(25, n, Math.random())).toBeGreaterThanOrEqual(25);
  });
});

describe("retry budget", () => {
  it("allows percent of requests over the interval plus the minimum rate's reserve, and no more", ({ expect }) => {
    const budget = new RetryBudget({ percent: 20, intervalMs: 10_000, minRetries: 1, minIntervalMs: 1000 });
    const now = 1_000_000_000;
    for (let i = 0; i < 100; i++) budget.request(now);
    let allowed = 0;
    while (budget.tryRetry(now) && allowed < 1000) allowed++;
    // 20% of 100 requests, plus 1 a second over 10 seconds.
    expect(allowed).toBe(30);
    // The window moves on: eleven seconds later the old requests and retries no longer count.
    expect(budget.tryRetry(now + 11_000)).toBe(true);
  });

  it("without a minimum rate, a backend that takes no requests gets no retries", ({ expect }) => {
    const budget = new RetryBudget({ percent: 50, intervalMs: 10_000, minRetries: 0, minIntervalMs: 1000 });
    expect(budget.tryRetry(5000)).toBe(false);
    budget.request(5000);
    budget.request(5000);
    expect(budget.tryRetry(5000)).toBe(true);
    expect(budget.tryRetry(5000)).toBe(false);
  });
});

describe("active checks take turns", () => {
  it("each run probes the next slice of endpoints, wrapping around, so every endpoint is probed in turn", ({ expect }) => {
    const ids = Array.from({ length: 10 }, (_, i) => i);
    const runs = [0, 1, 2, 3].map((run) => dueThisRun(ids, 4, run));
    expect(runs).toEqual([
      [0, 1, 2, 3],
      [4, 5, 6, 7],
      [8, 9, 0, 1],
      [2, 3, 4, 5],
    ]);
    expect(dueThisRun(ids, 20, 7)).toEqual(ids);
  });

  it("runs at most six probes at once, each started only when a slot frees, results in order", async ({ expect }) => {
    let open = 0;
    let most = 0;
    const startedAt: number[] = [];
    const results = await inTurns(
      Array.from({ length: 14 }, (_, i) => i),
      PROBE_CONCURRENCY,
      async (i) => {
        startedAt[i] = Date.now();
        open++;
        most = Math.max(most, open);
        await new Promise((r) => setTimeout(r, 20));
        open--;
        return i * 2;
      },
    );
    expect(most).toBe(6);
    expect(results).toEqual(Array.from({ length: 14 }, (_, i) => i * 2));
    // The seventh waited for a slot: its own timeout (started when it is sent) never ran while it queued.
    expect(startedAt[6]! - startedAt[0]!).toBeGreaterThanOrEqual(15);
  });
});

describe("retry endpoint choice", () => {
  const EDGE = `
apiVersion: kedge.dev/v1alpha1
kind: EdgeConfig
metadata: { name: t }
spec:
  gatewayClassName: kedge
  locality: { minHealthyEndpoints: 1 }
  clusters:
    - { name: iad, locality: { continent: NA, countries: [US], colos: [IAD] } }
    - { name: sfo, locality: { continent: NA, countries: [US], colos: [SFO] } }
    - { name: gru, locality: { continent: SA, countries: [BR], colos: [GRU] } }
`;
  const member = (ports: number[], withRoute = false) =>
    yamlDocs(
      ...(withRoute ? [gatewayAndRoute({ namespace: "app", rules: "    - backendRefs: [{ name: web, port: 8080 }]" })] : []),
      service("web", "app"),
      ...ports.map((port) => endpointSlice({ service: "web", name: `web-${port}`, namespace: "app", port })),
    );
  const IAD = { colo: "IAD", country: "US", continent: "NA" };

  it("prefers an untried cluster, the nearest such tier first, leaving the request's tier; then an untried endpoint", async ({
    expect,
  }) => {
    const { table } = await compileYaml(EDGE, { iad: member([1001, 1002], true), sfo: member([2001], true), gru: member([3001], true) });
    const prepared = prepareTable(table);
    const backend = [...prepared.backends.values()][0]!;
    const health = new HealthView();
    const first = pickEndpoint(prepared, backend, 0, IAD, health)!;
    expect(first.cluster).toBe("iad");
    const second = failoverEndpoint(prepared, backend, IAD, health, [first], 0.5)!;
    expect(second.cluster).toBe("sfo");
    const third = failoverEndpoint(prepared, backend, IAD, health, [first, second], 0.5)!;
    expect(third.cluster).toBe("gru");
    // Every cluster tried: the other iad endpoint; then nothing is left.
    const fourth = failoverEndpoint(prepared, backend, IAD, health, [first, second, third], 0.5)!;
    expect(fourth.id).not.toBe(first.id);
    expect(fourth.cluster).toBe("iad");
    expect(failoverEndpoint(prepared, backend, IAD, health, [first, second, third, fourth], 0.5)).toBeNull();
  });

  it("skips endpoints the health view calls unusable while others are left", async ({ expect }) => {
    const { table } = await compileYaml(EDGE, { iad: member([1001], true), sfo: member([2001], true), gru: member([3001], true) });
    const prepared = prepareTable(table);
    const backend = [...prepared.backends.values()][0]!;
    const health = new HealthView();
    const sfo = backend.backend.endpoints.find((e) => e.cluster === "sfo")!;
    health.setActive(new Set([sfo.id]));
    const iad = backend.backend.endpoints.find((e) => e.cluster === "iad")!;
    expect(failoverEndpoint(prepared, backend, IAD, health, [iad], 0)!.cluster).toBe("gru");
  });
});
