/**
 * `retry.attempts` at the real Worker (GEP-1731, Standard in Gateway API v1.7), counted at the loopback
 * origins: `attempts: 0` sends a failing request once, a refused answer and a reset connection alike (not
 * even the failover a rule without a retry stanza gets); left out, one retry.
 */
import { describe, inject, it } from "vitest";
import { infraRoute, infraYaml } from "../support/conformance-infra";
import { endpointSlice, service, yamlDocs } from "../support/manifests";
import { dispatch } from "./dispatch";
import { seedYaml } from "./seed-table";

const NS = "gateway-conformance-infra";

/** How many requests carrying `testId` the origins saw, all three together. */
async function seenAtOrigins(testId: string): Promise<number> {
  const ports = inject("originPorts");
  const counts = await Promise.all(
    [ports.v1, ports.v2, ports.v3].map(async (port) => {
      const answer = await fetch(`http://127.0.0.1:${port}/__origin/count?testId=${testId}`);
      return ((await answer.json()) as { count: number }).count;
    }),
  );
  return counts.reduce((a, b) => a + b, 0);
}

/** GETs `path` once, marked so the origins count it; answers the status, the error code and the sends counted. */
async function sendOnce(path: string): Promise<{ status: number; error?: string; sends: number }> {
  const testId = crypto.randomUUID();
  const response = await dispatch(new Request(`http://example.org${path}`, { headers: { "x-test-id": testId } }));
  const body = (await response.json()) as { error?: string };
  return { status: response.status, ...(body.error ? { error: body.error } : {}), sends: await seenAtOrigins(testId) };
}

/** A per-run key, so the origins' failure counters never see one key twice. */
const RUN = crypto.randomUUID().slice(0, 8);

describe("retry.attempts (GEP-1731, Gateway API v1.7)", () => {
  async function seed(): Promise<void> {
    const ports = inject("originPorts");
    // `multi`: one endpoint on each origin, so a retry has somewhere else to go.
    const slices = (["v1", "v2", "v3"] as const).map((v) =>
      endpointSlice({ service: "multi", name: `multi-${v}`, namespace: NS, port: ports[v] }),
    );
    await seedYaml(
      yamlDocs(
        infraYaml(ports),
        service("multi", NS),
        ...slices,
        infraRoute(`    - matches: [{ path: { type: PathPrefix, value: /off } }]
      retry: { codes: [500, 502, 503, 504], attempts: 0 }
      backendRefs: [{ name: multi, port: 8080 }]
    - matches: [{ path: { type: PathPrefix, value: /default } }]
      retry: { codes: [500] }
      backendRefs: [{ name: multi, port: 8080 }]
    - matches: [{ path: { type: PathPrefix, value: /no-stanza } }]
      backendRefs: [{ name: multi, port: 8080 }]`),
      ),
    );
  }

  it("attempts 0: a request answered 500 is sent once, and its 500 returned", async ({ expect }) => {
    await seed();
    expect(await sendOnce(`/off?status=500&succeedAfter=1&key=${RUN}-off-500`)).toEqual({ status: 500, sends: 1 });
  });

  it("attempts 0: a GET whose connection is reset is sent once (no failover to another endpoint), and answers 503", async ({ expect }) => {
    await seed();
    expect(await sendOnce(`/off?succeedAfter=1&key=${RUN}-off-reset`)).toEqual({ status: 503, error: "UPSTREAM_UNREACHABLE", sends: 1 });
  });

  it("attempts left out: one retry (kedge's default; v1.7 leaves it to the implementation)", async ({ expect }) => {
    await seed();
    // Two sends, each to an endpoint failing for the first time: the second 500 is returned.
    expect(await sendOnce(`/default?status=500&succeedAfter=1&key=${RUN}-default-500`)).toEqual({ status: 500, sends: 2 });
  });

  it("no retry stanza: an idempotent request that cannot connect fails over once; an answer is never retried", async ({ expect }) => {
    await seed();
    expect(await sendOnce(`/no-stanza?succeedAfter=1&key=${RUN}-plain-reset`)).toEqual({
      status: 503,
      error: "UPSTREAM_UNREACHABLE",
      sends: 2,
    });
    expect(await sendOnce(`/no-stanza?status=500&succeedAfter=1&key=${RUN}-plain-500`)).toEqual({ status: 500, sends: 1 });
  });
});
