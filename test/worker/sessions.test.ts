import { createExecutionContext, runDurableObjectAlarm, runInDurableObject, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, inject, it } from "vitest";
import { sessionKeys, signToken } from "../../src/session/session-token";
import { createApp } from "../../src/worker/app";
import type { Env } from "../../src/worker/env";
import { Isolate } from "../../src/worker/isolate";
import { EDGE_YAML, infraRoute, infraYaml } from "../support/conformance-infra";
import { endpointSlice, service, yamlDocs } from "../support/manifests";
import { compileYaml } from "./compile";
import { publishTable, seedYaml } from "./seed-table";

/** The gateway with a clock the test moves: expiry is tested without sleeping. */
let clock = Date.now();
const isolate = new Isolate();
const app = createApp({ now: () => clock, isolate });
/** Empties the isolate's session cache, as a fresh isolate starts (what other isolates see). */
const forgetCachedSessions = () => isolate.sessions.clear();
const MINUTE = 60_000;

async function send(path: string, headers: Record<string, string> = {}, host = "example.org"): Promise<Response> {
  const ctx = createExecutionContext();
  const response = await app.fetch(new Request(`http://${host}${path}`, { headers }), env, ctx);
  await waitOnExecutionContext(ctx);
  return response;
}

interface Answer {
  status: number;
  endpoint: string;
  setCookie: string | null;
  header: string | null;
}

async function ask(path: string, headers: Record<string, string> = {}): Promise<Answer> {
  const response = await send(path, headers);
  const body = (await response.json()) as { endpoint?: string; error?: string };
  return {
    status: response.status,
    endpoint: body.endpoint ?? body.error ?? "?",
    setCookie: response.headers.get("set-cookie"),
    header: response.headers.get("x-session"),
  };
}

/** `name=value` of a Set-Cookie header, ready to send back. */
const cookieOf = (setCookie: string | null): string => (setCookie ?? "").split(";")[0]!;

/** Service `multi` with one endpoint per origin (v1, v2, v3); `state` overrides an endpoint's conditions. */
function multiService(state: Partial<Record<"v1" | "v2" | "v3", string>> = {}, only: ("v1" | "v2" | "v3")[] = ["v1", "v2", "v3"]): string {
  const ports = inject("originPorts");
  const namespace = "gateway-conformance-infra";
  const slices = only.map((v) => endpointSlice({ service: "multi", name: `multi-${v}`, namespace, port: ports[v], conditions: state[v] }));
  return yamlDocs(service("multi", namespace), ...slices);
}

const route = (rules: string, name = "sticky"): string => infraRoute(rules, name);

async function seed(...resources: string[]): Promise<void> {
  await seedYaml([infraYaml(inject("originPorts")), ...resources].join("---\n"));
}

const COOKIE_RULE = `    - matches: [{ path: { type: PathPrefix, value: /session } }]
      sessionPersistence: { type: Cookie }
      backendRefs: [{ name: multi, port: 8080 }]`;

describe("cookie sessions", () => {
  it("the first response sets a Session cookie (no Expires or Max-Age); 50 requests with it reach one endpoint", async ({ expect }) => {
    await seed(multiService(), route(COOKIE_RULE));
    const first = await ask("/session");
    expect(first.status).toBe(200);
    expect(first.setCookie).toMatch(
      /^kedge-session-[0-9a-f]{8}=[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{48,}; Path=\/; HttpOnly; SameSite=Strict$/,
    );
    expect(first.setCookie).not.toMatch(/Max-Age|Expires/i);
    const endpoints = new Set<string>();
    for (let i = 0; i < 50; i++) {
      const next = await ask("/session", { cookie: `theme=dark; ${cookieOf(first.setCookie)}; other=1` });
      endpoints.add(next.endpoint);
      expect(next.setCookie).toBeNull();
    }
    expect([...endpoints]).toEqual([first.endpoint]);
  });

  it("a Permanent cookie carries Max-Age equal to absoluteTimeout, and the configured name and path", async ({ expect }) => {
    await seed(
      multiService(),
      route(`    - matches: [{ path: { type: PathPrefix, value: /cart } }]
      sessionPersistence: { sessionName: cart, absoluteTimeout: 1h, cookieConfig: { lifetimeType: Permanent } }
      backendRefs: [{ name: multi, port: 8080 }]
    - matches: [{ path: { type: PathPrefix, value: /new-shape } }]
      sessionPersistence: { type: Cookie, absoluteTimeout: 5m, cookie: { name: shop, path: /new-shape, lifetimeType: Permanent } }
      backendRefs: [{ name: multi, port: 8080 }]`),
    );
    expect((await ask("/cart")).setCookie).toMatch(/^cart=[^;]+; Path=\/; HttpOnly; SameSite=Strict; Max-Age=3600$/);
    expect((await ask("/new-shape")).setCookie).toMatch(/^shop=[^;]+; Path=\/new-shape; HttpOnly; SameSite=Strict; Max-Age=300$/);
  });

  it("marks the cookie Secure on HTTPS", async ({ expect }) => {
    await seed(
      multiService(),
      `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: { name: secure, namespace: gateway-conformance-infra }
spec:
  gatewayClassName: kedge
  listeners: [{ name: https, protocol: HTTPS, port: 443, hostname: secure.example }]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: { name: secure, namespace: gateway-conformance-infra }
spec:
  parentRefs: [{ name: secure }]
  rules: [{ sessionPersistence: { sessionName: s }, backendRefs: [{ name: multi, port: 8080 }] }]
`,
    );
    const ctx = createExecutionContext();
    const response = await app.fetch(new Request("https://secure.example/"), env, ctx);
    await waitOnExecutionContext(ctx);
    await response.arrayBuffer();
    expect(response.status).toBe(200);
    expect(response.headers.get("set-cookie")).toMatch(/^s=[^;]+; Path=\/; HttpOnly; SameSite=Strict; Secure$/);
  });

  it("rules /a and /b on one backend keep separate sessions, even with the same cookie name", async ({ expect }) => {
    await seed(
      multiService(),
      route(`    - matches: [{ path: { type: PathPrefix, value: /a } }]
      sessionPersistence: { sessionName: shared }
      backendRefs: [{ name: multi, port: 8080 }]
    - matches: [{ path: { type: PathPrefix, value: /b } }]
      sessionPersistence: { sessionName: shared }
      backendRefs: [{ name: multi, port: 8080 }]`),
    );
    const a = await ask("/a");
    // /a's token is not valid for /b: /b starts its own session.
    const b = await ask("/b", { cookie: cookieOf(a.setCookie) });
    expect(b.setCookie).toMatch(/^shared=/);
    expect(cookieOf(b.setCookie)).not.toBe(cookieOf(a.setCookie));
    for (let i = 0; i < 10; i++) {
      expect((await ask("/a", { cookie: cookieOf(a.setCookie) })).endpoint).toBe(a.endpoint);
      expect((await ask("/b", { cookie: cookieOf(b.setCookie) })).endpoint).toBe(b.endpoint);
    }
  });

  it("the token reveals nothing: no cluster, namespace, Service, backend or address in its bytes", async ({ expect }) => {
    await seed(multiService(), route(COOKIE_RULE));
    const token = cookieOf((await ask("/session")).setCookie).split("=")[1]!;
    const bytes = atob(
      token
        .replaceAll(".", "")
        .replaceAll("-", "+")
        .replaceAll("_", "/")
        .slice(0, Math.floor((token.length - 1) / 4) * 4),
    );
    for (const secret of ["gateway-conformance-infra", "multi:8080", "Service", "127.0.0.1", `${inject("originPorts").v1}`])
      expect(bytes.includes(secret) || token.includes(secret), secret).toBe(false);
  });

  it("a token of the earlier signed form (its pin readable) still resumes its session", async ({ expect }) => {
    await seed(multiService(), route(COOKIE_RULE));
    const scope = "gateway-conformance-infra/sticky/rule/0";
    const pin = {
      backend: "Service/c1/gateway-conformance-infra/multi:8080",
      endpoint: `c1/127.0.0.1:${inject("originPorts").v2}`,
      createdAt: Date.now(),
    };
    const token = await signToken(await sessionKeys((env as Env).SESSION_HMAC_KEY!), scope, "BBBBBBBBBBBBBBBBBBBBBB", pin);
    const name = cookieOf((await ask("/session")).setCookie).split("=")[0]!;
    forgetCachedSessions();
    for (let i = 0; i < 5; i++)
      expect(await ask("/session", { cookie: `${name}=${token}` })).toMatchObject({ endpoint: "infra-backend-v2", setCookie: null });
  });

  it("ignores a forged or altered token and starts a new session", async ({ expect }) => {
    await seed(multiService(), route(COOKIE_RULE));
    const first = await ask("/session");
    const [name, token] = cookieOf(first.setCookie).split("=") as [string, string];
    // One character inside the second part changed (not its last: that one's low bits may be base64url padding,
    // which decodes to the same bytes).
    const at = 28;
    const altered = `${token.slice(0, at)}${token[at] === "A" ? "B" : "A"}${token.slice(at + 1)}`;
    for (const forged of [altered, "AAAAAAAAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAA", "garbage", ""]) {
      const response = await ask("/session", { cookie: `${name}=${forged}` });
      expect(response.status).toBe(200);
      expect(response.setCookie, forged).toMatch(new RegExp(`^${name}=`));
    }
  });
});

describe("sessions and weights", () => {
  const split = (w1: number, w2: number) =>
    route(`    - matches: [{ path: { type: PathPrefix, value: /split } }]
      sessionPersistence: { type: Cookie }
      backendRefs: [{ name: infra-backend-v1, port: 8080, weight: ${w1} }, { name: infra-backend-v2, port: 8080, weight: ${w2} }]`);

  it("requests without a token follow 70/30; a pinned one stays, also after its backend's weight drops to 0", async ({ expect }) => {
    await seed(split(70, 30));
    let v1 = 0;
    let pinnedToV2: string | undefined;
    for (let i = 0; i < 200; i++) {
      const answer = await ask("/split");
      if (answer.endpoint === "infra-backend-v1") v1++;
      else pinnedToV2 ??= cookieOf(answer.setCookie);
    }
    // 200 draws at 70%: one standard deviation is 3.2 points, these bounds 4.6 (a flake in ~200,000 runs).
    expect(v1 / 200).toBeGreaterThan(0.55);
    expect(v1 / 200).toBeLessThan(0.85);
    expect(pinnedToV2).toBeDefined();
    for (let i = 0; i < 20; i++) expect((await ask("/split", { cookie: pinnedToV2! })).endpoint).toBe("infra-backend-v2");

    await seed(split(1, 0));
    for (let i = 0; i < 20; i++) {
      const answer = await ask("/split", { cookie: pinnedToV2! });
      expect(answer.endpoint).toBe("infra-backend-v2");
      expect(answer.setCookie).toBeNull();
    }
    for (let i = 0; i < 20; i++) expect((await ask("/split")).endpoint).toBe("infra-backend-v1");
  });
});

describe("header sessions", () => {
  it("hand out the token in the named header; requests sending it back stick", async ({ expect }) => {
    await seed(
      multiService(),
      route(`    - matches: [{ path: { type: PathPrefix, value: /api } }]
      sessionPersistence: { type: Header, header: { name: x-session } }
      backendRefs: [{ name: multi, port: 8080 }]`),
    );
    const first = await ask("/api");
    expect(first.header).toMatch(/^[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{48,}$/);
    expect(first.setCookie).toBeNull();
    for (let i = 0; i < 30; i++) {
      const next = await ask("/api", { "x-session": first.header! });
      expect(next.endpoint).toBe(first.endpoint);
      expect(next.header).toBeNull();
    }
  });
});

describe("expiry (a clock the test moves)", () => {
  it("an idle session expires after idleTimeout without requests; activity keeps it alive", async ({ expect }) => {
    await seed(
      multiService(),
      route(`    - matches: [{ path: { type: PathPrefix, value: /idle } }]
      sessionPersistence: { sessionName: idle, idleTimeout: 10m }
      backendRefs: [{ name: multi, port: 8080 }]`),
    );
    clock = Date.now();
    const cookie = cookieOf((await ask("/idle")).setCookie);
    for (let i = 0; i < 4; i++) {
      clock += 8 * MINUTE; // 32 minutes in all, never 10 idle
      expect((await ask("/idle", { cookie })).setCookie).toBeNull();
    }
    clock += 11 * MINUTE;
    expect((await ask("/idle", { cookie })).setCookie).toMatch(/^idle=/);
  });

  it("a session ends at absoluteTimeout however active it is", async ({ expect }) => {
    await seed(
      multiService(),
      route(`    - matches: [{ path: { type: PathPrefix, value: /abs } }]
      sessionPersistence: { sessionName: abs, absoluteTimeout: 1h }
      backendRefs: [{ name: multi, port: 8080 }]`),
    );
    clock = Date.now();
    const cookie = cookieOf((await ask("/abs")).setCookie);
    for (let i = 0; i < 5; i++) {
      clock += 11 * MINUTE; // 55 minutes
      expect((await ask("/abs", { cookie })).setCookie).toBeNull();
    }
    clock += 6 * MINUTE;
    expect((await ask("/abs", { cookie })).setCookie).toMatch(/^abs=/);
  });

  it("a new session stores nothing; one used again is written behind, and the SessionStore's alarm deletes it once idle", async ({
    expect,
  }) => {
    await seed(
      multiService(),
      route(
        `    - matches: [{ path: { type: PathPrefix, value: /sweep } }]
      sessionPersistence: { sessionName: sweep, idleTimeout: 1m }
      backendRefs: [{ name: multi, port: 8080 }]`,
        "sweep",
      ),
    );
    clock = Date.now() - 50_000;
    const cookie = cookieOf((await ask("/sweep")).setCookie);
    const token = cookie.split("=")[1]!;
    const stub = env.SESSIONS.get(env.SESSIONS.idFromName(`gateway-conformance-infra/sweep/rule/0#${token[0]}`));
    // The token carries the pin: a client that never comes back costs no storage.
    expect(await runInDurableObject(stub, (store) => store.count())).toBe(0);
    clock += 20_000; // used again 20 s later: its last-seen time is written behind
    expect((await ask("/sweep", { cookie })).setCookie).toBeNull();
    expect(await runInDurableObject(stub, (store) => store.count())).toBe(1);
    expect(await runInDurableObject(stub, (_, state) => state.storage.getAlarm())).toBe(clock + MINUTE);
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect(await runInDurableObject(stub, (store) => store.count())).toBe(0);
    expect(await runInDurableObject(stub, (store) => store.schemaVersion())).toBe(2);
    clock = Date.now();
  });
});

describe("tokens carry their pin: other isolates serve them without a storage round trip", () => {
  const IDLE_RULE = `    - matches: [{ path: { type: PathPrefix, value: /pin } }]
      sessionPersistence: { sessionName: pin, idleTimeout: 10m }
      backendRefs: [{ name: multi, port: 8080 }]`;
  const storeOf = (token: string) => env.SESSIONS.get(env.SESSIONS.idFromName(`gateway-conformance-infra/pinned/rule/0#${token[0]}`));

  async function started(): Promise<{ cookie: string; endpoint: string; token: string }> {
    await seed(multiService(), route(IDLE_RULE, "pinned"));
    clock = Date.now();
    const first = await ask("/pin");
    const cookie = cookieOf(first.setCookie);
    return { cookie, endpoint: first.endpoint, token: cookie.split("=")[1]! };
  }

  it("a fresh isolate resumes a session the store has never heard of, from the token alone", async ({ expect }) => {
    const { cookie, endpoint, token } = await started();
    forgetCachedSessions();
    clock += 5_000;
    expect(await ask("/pin", { cookie })).toMatchObject({ endpoint, setCookie: null });
    expect(await runInDurableObject(storeOf(token), (store) => store.count())).toBe(0);
    // Later uses are written behind (at most every idleTimeout/4, 10 s at most), for other isolates' idle checks.
    clock += 60_000;
    expect(await ask("/pin", { cookie })).toMatchObject({ endpoint, setCookie: null });
    expect(await runInDurableObject(storeOf(token), (store) => store.count())).toBe(1);
    clock = Date.now();
  });

  it("past its idle timeout since issue, a fresh isolate asks the store: kept when it was used since, ended when not", async ({
    expect,
  }) => {
    const { cookie, endpoint } = await started();
    for (let i = 0; i < 3; i++) {
      clock += 4 * MINUTE; // used every 4 minutes: written behind, as another isolate needs
      expect((await ask("/pin", { cookie })).endpoint).toBe(endpoint);
    }
    forgetCachedSessions();
    clock += 4 * MINUTE; // 16 minutes after issue, 4 after its last use
    expect(await ask("/pin", { cookie })).toMatchObject({ endpoint, setCookie: null });
    forgetCachedSessions();
    clock += 11 * MINUTE; // idle for 11 minutes
    expect((await ask("/pin", { cookie })).setCookie).toMatch(/^pin=/);
    clock = Date.now();
  });

  it("a token of the earlier form (id and MAC, the pin in the store) still resumes its session", async ({ expect }) => {
    await seed(multiService(), route(IDLE_RULE, "pinned"));
    clock = Date.now();
    const scope = "gateway-conformance-infra/pinned/rule/0";
    const id = "AAAAAAAAAAAAAAAAAAAAAA";
    const key = (await sessionKeys((env as Env).SESSION_HMAC_KEY!)).hmac;
    const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(`${scope}\n${id}`))).subarray(0, 16);
    const token = `${id}.${btoa(String.fromCharCode(...mac))
      .replaceAll("+", "-")
      .replaceAll("/", "_")
      .replace(/=+$/, "")}`;
    const backend = "Service/c1/gateway-conformance-infra/multi:8080";
    const endpoint = `c1/127.0.0.1:${inject("originPorts").v3}`;
    await runInDurableObject(storeOf(id), (store) =>
      store.touch(id, { backend, endpoint, createdAt: clock, lastSeen: clock, idleTimeoutMs: 10 * MINUTE }),
    );
    forgetCachedSessions();
    expect(await ask("/pin", { cookie: `pin=${token}` })).toMatchObject({ endpoint: "infra-backend-v3", setCookie: null });
  });
});

describe("pinned endpoint changes", () => {
  async function pinned(): Promise<{ cookie: string; endpoint: "v1" | "v2" | "v3" }> {
    await seed(multiService(), route(COOKIE_RULE));
    const first = await ask("/session");
    return { cookie: cookieOf(first.setCookie), endpoint: first.endpoint.replace("infra-backend-", "") as "v1" | "v2" | "v3" };
  }

  it("an endpoint that left the table re-pins the session elsewhere and issues a new token", async ({ expect }) => {
    const { cookie, endpoint } = await pinned();
    await seed(
      multiService(
        {},
        (["v1", "v2", "v3"] as const).filter((v) => v !== endpoint),
      ),
      route(COOKIE_RULE),
    );
    const moved = await ask("/session", { cookie });
    expect(moved.endpoint).not.toBe(`infra-backend-${endpoint}`);
    expect(moved.setCookie).toMatch(/^kedge-session-/);
    for (let i = 0; i < 10; i++) expect((await ask("/session", { cookie: cookieOf(moved.setCookie) })).endpoint).toBe(moved.endpoint);
  });

  it("an unready endpoint loses its sessions; a terminating one that still serves keeps them but takes no new ones", async ({ expect }) => {
    const { cookie, endpoint } = await pinned();
    await seed(multiService({ [endpoint]: "{ ready: false, serving: true, terminating: true }" }), route(COOKIE_RULE));
    for (let i = 0; i < 10; i++) {
      const draining = await ask("/session", { cookie });
      expect(draining.endpoint).toBe(`infra-backend-${endpoint}`);
      expect(draining.setCookie).toBeNull();
    }
    for (let i = 0; i < 30; i++) expect((await ask("/session")).endpoint).not.toBe(`infra-backend-${endpoint}`);

    await seed(multiService({ [endpoint]: "{ ready: false, serving: false, terminating: false }" }), route(COOKIE_RULE));
    const moved = await ask("/session", { cookie });
    expect(moved.endpoint).not.toBe(`infra-backend-${endpoint}`);
    expect(moved.setCookie).not.toBeNull();
  });
});

describe("policy-level persistence (GEP-1282: the backend's owner decides)", () => {
  it("a BackendLBPolicy on the Service applies to rules using it; a rule's own setting overrides it", async ({ expect }) => {
    await seed(
      multiService(),
      `apiVersion: gateway.networking.k8s.io/v1alpha2
kind: BackendLBPolicy
metadata: { name: sticky-multi, namespace: gateway-conformance-infra }
spec:
  targetRefs: [{ group: "", kind: Service, name: multi }]
  sessionPersistence: { sessionName: from-policy, type: Cookie }
`,
      route(`    - matches: [{ path: { type: PathPrefix, value: /policy } }]
      backendRefs: [{ name: multi, port: 8080 }]
    - matches: [{ path: { type: PathPrefix, value: /override } }]
      sessionPersistence: { type: Header, header: { name: x-session } }
      backendRefs: [{ name: multi, port: 8080 }]
    - matches: [{ path: { type: PathPrefix, value: /plain } }]
      backendRefs: [{ name: infra-backend-v1, port: 8080 }]`),
    );
    const policy = await ask("/policy");
    expect(policy.setCookie).toMatch(/^from-policy=/);
    for (let i = 0; i < 10; i++) expect((await ask("/policy", { cookie: cookieOf(policy.setCookie) })).endpoint).toBe(policy.endpoint);
    const override = await ask("/override");
    expect(override.setCookie).toBeNull();
    expect(override.header).not.toBeNull();
    const plain = await ask("/plain");
    expect(plain.setCookie).toBeNull();
    expect(plain.header).toBeNull();
  });
});

describe("backend-level persistence: an XBackend's own sessionPersistence (Gateway API v1.7)", () => {
  /** The conformance base, with the XBackend `partner` on the v1 origin (localhost: allowed for local development). */
  async function seedPartner(): Promise<void> {
    const ports = inject("originPorts");
    const edge = EDGE_YAML.replace("spec:\n", "spec:\n  egress: { allowLocalhost: true }\n");
    const partner = `apiVersion: gateway.networking.x-k8s.io/v1alpha1
kind: XBackend
metadata: { name: partner, namespace: gateway-conformance-infra }
spec:
  type: ExternalHostname
  externalHostname: { hostname: localhost }
  port: { port: ${ports.v1} }
  tls: { mode: None }
  sessionPersistence: { type: Cookie, cookie: { name: partner-session } }
`;
    const toPartner = "{ group: gateway.networking.x-k8s.io, kind: XBackend, name: partner }";
    const resources = [
      infraYaml(ports),
      partner,
      route(`    - matches: [{ path: { type: PathPrefix, value: /partner } }]
      backendRefs: [${toPartner}, { name: infra-backend-v2, port: 8080 }]
    - matches: [{ path: { type: PathPrefix, value: /rule-says-header } }]
      sessionPersistence: { type: Header, header: { name: x-session } }
      backendRefs: [${toPartner}]`),
      route(
        `    - matches: [{ path: { type: PathPrefix, value: /elsewhere } }]
      backendRefs: [${toPartner}]`,
        "elsewhere",
      ),
    ].join("\n---\n");
    const { table } = await compileYaml(edge, { c1: resources });
    await publishTable(table);
  }

  it("every route that sends to the XBackend issues its cookie; a client pinned to either backend of the rule stays there", async ({
    expect,
  }) => {
    await seedPartner();
    const pinned: Record<string, string> = {};
    for (let i = 0; i < 60 && Object.keys(pinned).length < 2; i++) {
      const answer = await ask("/partner");
      expect(answer.status).toBe(200);
      // The XBackend's cookie, for the whole rule: the Service beside it included.
      expect(answer.setCookie).toMatch(/^partner-session=[^;]+; Path=\/; HttpOnly; SameSite=Strict$/);
      pinned[answer.endpoint] ??= cookieOf(answer.setCookie);
    }
    // infra-backend-v1 is the origin behind the XBackend; v2 is the Service's.
    expect(Object.keys(pinned).sort()).toEqual(["infra-backend-v1", "infra-backend-v2"]);
    for (const [endpoint, cookie] of Object.entries(pinned))
      for (let i = 0; i < 20; i++) expect(await ask("/partner", { cookie })).toMatchObject({ status: 200, endpoint, setCookie: null });

    // Another route to the same XBackend: the same cookie name, but its own sessions (a token is per rule).
    const elsewhere = await ask("/elsewhere", { cookie: pinned["infra-backend-v1"]! });
    expect(elsewhere).toMatchObject({ status: 200, endpoint: "infra-backend-v1" });
    expect(elsewhere.setCookie).toMatch(/^partner-session=/);
    expect(cookieOf(elsewhere.setCookie)).not.toBe(pinned["infra-backend-v1"]);
    for (let i = 0; i < 5; i++)
      expect(await ask("/elsewhere", { cookie: cookieOf(elsewhere.setCookie) })).toMatchObject({
        endpoint: "infra-backend-v1",
        setCookie: null,
      });
  });

  it("the XBackend's own setting wins over the rule's: its cookie is issued, not the rule's header", async ({ expect }) => {
    await seedPartner();
    const first = await ask("/rule-says-header");
    expect(first).toMatchObject({ status: 200, endpoint: "infra-backend-v1", header: null });
    expect(first.setCookie).toMatch(/^partner-session=/);
    expect(await ask("/rule-says-header", { cookie: cookieOf(first.setCookie) })).toMatchObject({
      endpoint: "infra-backend-v1",
      setCookie: null,
    });
  });
});
