/**
 * Leader election on a coordination.k8s.io/v1 Lease of a stand-in API server, with short timings: of two
 * candidates exactly one leads and the Lease names it; a leader that stops releases the Lease (no holder,
 * leaseDurationSeconds 1) and the other takes it at its next try, one transition more; a leader whose
 * API server fails stops leading within its renew deadline; a namespace that does not exist is a
 * UserError at the first try, not a retry for ever; timings client-go would refuse are refused.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, it } from "vitest";
import { KubeApi } from "../../scripts/kube/api-client";
import { CLIENT_GO_TIMINGS, LeaderElector, timingsProblem } from "../../scripts/controller/leader-election";
import { LeaseLock, microTime } from "../../scripts/controller/lease-lock";
import { candidateIdentity, electionNamespace, leaseName } from "../../scripts/controller/election-settings";
import { UserError } from "../../scripts/lib/user-error";
import { KubeStandIn, kubeconfigFor } from "../support/kube-api-stand-in";
import { resource } from "../support/stand-in-resources";

const TOKEN = "t";
const TIMINGS = { leaseDurationMs: 2000, renewDeadlineMs: 1500, retryPeriodMs: 200 };
const dir = mkdtempSync(join(tmpdir(), "kedge-election-"));

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function standIn(options: { strictNamespaces?: boolean } = {}): Promise<KubeStandIn> {
  const s = await KubeStandIn.start([resource("Namespace", [{ metadata: { name: "kedge-system" } }])], { token: TOKEN, ...options });
  cleanups.push(() => s.close());
  return s;
}

function api(s: KubeStandIn): KubeApi {
  const file = join(dir, `${s.url.replace(/\W/g, "")}.json`);
  writeFileSync(file, kubeconfigFor({ home: s.url }, TOKEN));
  return KubeApi.forCluster({
    name: "home",
    kubeContext: "home",
    kubeconfig: file,
    weight: 1,
    state: "Serving",
    priority: 0,
    endpoints: { from: "EndpointSlice", scheme: "http" },
  });
}

interface Candidate {
  elector: LeaderElector;
  events: string[];
  stop(): Promise<void>;
  done: Promise<void>;
}

function candidate(s: KubeStandIn, identity: string, namespace = "kedge-system"): Candidate {
  const events: string[] = [];
  const elector = new LeaderElector(new LeaseLock(api(s), namespace, "kedge-edge"), identity, TIMINGS, {
    startedLeading: () => events.push("started"),
    stoppedLeading: (why) => events.push(`stopped: ${why}`),
    newLeader: (who) => events.push(`leader ${who}`),
  });
  const abort = new AbortController();
  const done = elector.run(abort.signal);
  const c = {
    elector,
    events,
    done,
    stop: async () => {
      abort.abort();
      await done.catch(() => undefined);
    },
  };
  cleanups.push(c.stop);
  return c;
}

async function until(test: () => boolean, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  while (!test()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const spec = (s: KubeStandIn) => s.object("leases", "kedge-system", "kedge-edge")?.spec as Record<string, unknown> | undefined;

describe("leader election on a Lease", () => {
  it("of two candidates exactly one leads, and the Lease names it", async ({ expect }) => {
    const s = await standIn();
    const a = candidate(s, "a");
    const b = candidate(s, "b");
    await until(() => a.elector.isLeader() || b.elector.isLeader(), 5000, "a leader");
    // Several retry periods later, still exactly one.
    await new Promise((r) => setTimeout(r, 4 * TIMINGS.retryPeriodMs));
    const leaders = [a, b].filter((c) => c.elector.isLeader());
    expect(leaders).toHaveLength(1);
    const leader = leaders[0]!.elector.identity;
    expect(spec(s)).toMatchObject({ holderIdentity: leader, leaseDurationSeconds: 2, leaseTransitions: 0 });
    expect(String(spec(s)!.renewTime)).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    const follower = leader === "a" ? b : a;
    expect(follower.elector.leader()).toBe(leader);
    expect(follower.events).toContain(`leader ${leader}`);
  });

  it("a leader that stops releases the Lease, and the other takes it at its next try", async ({ expect }) => {
    const s = await standIn();
    const a = candidate(s, "a");
    await until(() => a.elector.isLeader(), 5000, "a to lead");
    const b = candidate(s, "b");
    await until(() => b.elector.leader() === "a", 5000, "b to see a");
    await a.stop();
    expect(a.events.at(-1)).toMatch(/^stopped: stopping/);
    // Taken at b's next try, well before a's lease of 2 s would have run out had it not been released.
    await until(() => b.elector.isLeader(), 1500, "b to lead");
    expect(spec(s)).toMatchObject({ holderIdentity: "b", leaseTransitions: 1, leaseDurationSeconds: 2 });
    const released = s.requests.filter((r) => r.startsWith("PUT /apis/coordination.k8s.io/v1/namespaces/kedge-system/leases/kedge-edge"));
    expect(released.length).toBeGreaterThan(0);
  });

  it("the release is client-go's: no holder, a lease of one second, transitions kept", async ({ expect }) => {
    const s = await standIn();
    const a = candidate(s, "a");
    await until(() => a.elector.isLeader(), 5000, "a to lead");
    await a.stop();
    expect(spec(s)).toMatchObject({ holderIdentity: "", leaseDurationSeconds: 1, leaseTransitions: 0 });
  });

  it("a leader whose API server fails stops leading within its renew deadline, and leads again once it answers", async ({ expect }) => {
    const s = await standIn();
    const a = candidate(s, "a");
    await until(() => a.elector.isLeader(), 5000, "a to lead");
    s.failing = { status: 500, count: 1_000_000 };
    await until(() => !a.elector.isLeader(), TIMINGS.renewDeadlineMs + 2000, "a to stop leading");
    expect(a.events.at(-1)).toMatch(/could not renew the Lease kedge-system\/kedge-edge .* within the renew deadline/);
    s.failing = undefined;
    await until(() => a.elector.isLeader(), 5000, "a to lead again");
  });

  it("a candidate that finds the Lease held and fresh waits the whole lease duration before taking it", async ({ expect }) => {
    const s = await standIn();
    const now = Date.now();
    s.apply("leases", {
      metadata: { name: "kedge-edge", namespace: "kedge-system" },
      spec: {
        holderIdentity: "gone",
        leaseDurationSeconds: 2,
        renewTime: microTime(now),
        acquireTime: microTime(now),
        leaseTransitions: 3,
      },
    });
    const b = candidate(s, "b");
    await until(() => b.elector.leader() === "gone", 2000, "b to see the holder");
    expect(b.elector.isLeader()).toBe(false);
    await until(() => b.elector.isLeader(), 5000, "b to take the expired Lease");
    expect(spec(s)).toMatchObject({ holderIdentity: "b", leaseTransitions: 4 });
  });

  it("a namespace that does not exist stops the election at its first try, with the fix", async ({ expect }) => {
    const s = await standIn({ strictNamespaces: true });
    const c = candidate(s, "a", "nowhere");
    const error = await c.done.then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(UserError);
    expect((error as UserError).message).toMatch(/the namespace nowhere of the Lease does not exist/);
    expect((error as UserError).hint).toContain("--leader-elect-namespace");
  });

  it("refuses timings client-go refuses, and takes its defaults", ({ expect }) => {
    expect(timingsProblem(CLIENT_GO_TIMINGS)).toBeNull();
    expect(CLIENT_GO_TIMINGS).toEqual({ leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 });
    expect(timingsProblem({ leaseDurationMs: 10_000, renewDeadlineMs: 10_000, retryPeriodMs: 2000 })).toMatch(
      /lease-duration must be longer/,
    );
    expect(timingsProblem({ leaseDurationMs: 15_000, renewDeadlineMs: 2000, retryPeriodMs: 2000 })).toMatch(
      /1.2 × --leader-elect-retry-period/,
    );
  });

  it("names the candidate, the namespace and the Lease as a Pod would", ({ expect }) => {
    expect(candidateIdentity({ POD_NAME: "kedge-7d9f-abcde" })).toBe("kedge-7d9f-abcde");
    expect(candidateIdentity({})).toMatch(new RegExp(`_${process.pid}$`));
    const file = join(dir, "namespace");
    writeFileSync(file, "edge-ns\n");
    expect(electionNamespace(undefined, file)).toBe("edge-ns");
    expect(electionNamespace(undefined, join(dir, "missing"))).toBe("kedge-system");
    expect(electionNamespace("mine", file)).toBe("mine");
    expect(() => electionNamespace("Not_A_Namespace")).toThrow(/is not a namespace name/);
    expect(leaseName("Shop_Edge")).toBe("kedge-shop-edge");
  });
});
