import { describe, it } from "vitest";
import { compileSession, parseSessionPersistence } from "../../src/compile/backends/session-persistence";
import { compileYaml } from "../support/compile-fixture";
import { gatewayAndRoute, service, yamlDocs } from "../support/manifests";

describe("sessionPersistence parsing", () => {
  it("reads the released shape and the newer one alike", ({ expect }) => {
    expect(
      parseSessionPersistence(
        { sessionName: "s", absoluteTimeout: "1h", idleTimeout: "10m", cookieConfig: { lifetimeType: "Permanent" } },
        "x",
      ),
    ).toEqual({
      type: "Cookie",
      name: "s",
      path: undefined,
      lifetime: "Permanent",
      absoluteTimeoutMs: 3_600_000,
      idleTimeoutMs: 600_000,
    });
    expect(parseSessionPersistence({ type: "Cookie", cookie: { name: "c", path: "/shop", lifetimeType: "Session" } }, "x")).toMatchObject({
      name: "c",
      path: "/shop",
      lifetime: "Session",
    });
    expect(parseSessionPersistence({ type: "Header", header: { name: "x-s" } }, "x")).toMatchObject({ type: "Header", name: "x-s" });
  });

  it.for([
    [{ cookieConfig: { lifetimeType: "Permanent" } }, "x.absoluteTimeout", "Permanent cookie needs absoluteTimeout"],
    [{ type: "Header", cookie: { name: "c" } }, "x.cookie", "only allowed with type Cookie"],
    [{ type: "Cookie", header: { name: "h" } }, "x.header", "only allowed with type Header"],
    [{ sessionName: "bad name;" }, "x.cookie.name", "not a valid cookie name"],
    [{ absoluteTimeout: "1 hour" }, "x.absoluteTimeout", "positive duration"],
    [{ cookie: { path: "relative" } }, "x.cookie.path", "must start with /"],
  ] as const)("rejects %j", ([raw, field, message], { expect }) => {
    expect(parseSessionPersistence(raw, "x")).toMatchObject({
      field,
      reason: "UnsupportedValue",
      message: expect.stringContaining(message),
    });
  });

  it("defaults a unique name per rule, path /, and an idle limit when no timeout is set", ({ expect }) => {
    const settings = { type: "Cookie" as const, lifetime: "Session" as const };
    const a = compileSession(settings, "c/ns/r/rule/0", "Strict");
    const b = compileSession(settings, "c/ns/r/rule/1", "Lax");
    expect(a.name).not.toBe(b.name);
    expect(a).toMatchObject({ path: "/", sameSite: "Strict", idleTimeoutMs: 86_400_000 });
    expect(b.sameSite).toBe("Lax");
  });
});

const EDGE = `
apiVersion: kedge.dev/v1alpha1
kind: EdgeConfig
spec: { gatewayClassName: kedge, clusters: [{ name: east }, { name: west }] }
`;

/** Gateway, route `web` with `rules`, and Services a and b (port 80). */
const base = (rules: string) => yamlDocs(gatewayAndRoute({ namespace: "app", rules }), service("a", "app", 80), service("b", "app", 80));

const policy = (name: string, target: string, persistence: string, created = "2026-01-01T00:00:00Z", kind = "BackendLBPolicy") => `
apiVersion: ${kind === "BackendLBPolicy" ? "gateway.networking.k8s.io/v1alpha2" : "gateway.networking.x-k8s.io/v1alpha1"}
kind: ${kind}
metadata: { name: ${name}, namespace: app, creationTimestamp: "${created}" }
spec:
  targetRefs: [${target}]
  sessionPersistence: ${persistence}
`;

describe("session policies", () => {
  it("apply to rules through their backends; a CompositeBackend's policy covers the aggregate from any cluster", async ({ expect }) => {
    const composite = `
apiVersion: gateway.networking.k8s.io/v1
kind: CompositeBackend
metadata: { name: agg, namespace: app }
spec: { targetRefs: [{ kind: Service, name: a }] }
`;
    const { table, statuses } = await compileYaml(EDGE, {
      east: [
        base(`    - backendRefs: [{ group: gateway.networking.k8s.io, kind: CompositeBackend, name: agg, port: 80 }]
    - backendRefs: [{ name: b, port: 80 }]`),
        composite,
        policy(
          "by-svc",
          "{ group: '', kind: Service, name: b }",
          "{ type: Header, header: { name: x-b } }",
          undefined,
          "XBackendTrafficPolicy",
        ),
      ].join("---"),
      west: [
        composite,
        service("a", "app", 80),
        policy("agg", "{ group: gateway.networking.k8s.io, kind: CompositeBackend, name: agg }", "{ sessionName: agg }"),
      ].join("---\n"),
    });
    expect(table.rules[0]?.session).toMatchObject({ type: "Cookie", name: "agg", scope: "app/web/rule/0" });
    expect(table.rules[1]?.session).toMatchObject({ type: "Header", name: "x-b", scope: "app/web/rule/1" });
    expect(statuses.filter((s) => s.object.kind.endsWith("Policy")).map((s) => s.conditions[0]?.status)).toEqual(["True", "True"]);
  });

  it("a second policy on the same backend, or reusing a cookie name, is Conflicted; the older one wins", async ({ expect }) => {
    const { table, statuses } = await compileYaml(EDGE, {
      east: [
        base("    - backendRefs: [{ name: a, port: 80 }]"),
        policy("new", "{ kind: Service, name: a }", "{ sessionName: two }", "2026-02-01T00:00:00Z"),
        policy("old", "{ kind: Service, name: a }", "{ sessionName: one }", "2026-01-01T00:00:00Z"),
        policy("clash", "{ kind: Service, name: b }", "{ sessionName: one }", "2026-03-01T00:00:00Z"),
      ].join("---"),
    });
    expect(table.rules[0]?.session?.name).toBe("one");
    const byName = Object.fromEntries(
      statuses.filter((s) => s.object.kind === "BackendLBPolicy").map((s) => [s.object.name, s.conditions[0]]),
    );
    expect(byName.old).toMatchObject({ status: "True" });
    expect(byName.new).toMatchObject({ status: "False", reason: "Conflicted" });
    expect(byName.clash).toMatchObject({ status: "False", reason: "Conflicted", message: expect.stringContaining("name one") });
  });

  it("one session name serves one backend: a rule reusing another backend's name keeps no session, and says so", async ({ expect }) => {
    const { table, diagnostics } = await compileYaml(EDGE, {
      east: [
        base(`    - matches: [{ path: { type: PathPrefix, value: /x } }]
      sessionPersistence: { sessionName: dup }
      backendRefs: [{ name: a, port: 80 }]
    - matches: [{ path: { type: PathPrefix, value: /y } }]
      sessionPersistence: { sessionName: dup }
      backendRefs: [{ name: b, port: 80 }]
    - matches: [{ path: { type: PathPrefix, value: /z } }]
      sessionPersistence: { sessionName: dup }
      backendRefs: [{ name: a, port: 80 }]
    - matches: [{ path: { type: PathPrefix, value: /p } }]
      sessionPersistence: { sessionName: policy-name }
      backendRefs: [{ name: a, port: 80 }]`),
        policy("on-b", "{ kind: Service, name: b }", "{ sessionName: policy-name }"),
      ].join("---"),
    });
    const byPath = Object.fromEntries(table.matches.map((m) => [m.path.value, table.rules[m.rule]?.session?.name ?? "(none)"]));
    // The first rule to name it keeps it; another rule to the same backend may share it (scoped per rule).
    expect(byPath["/x"]).toBe("dup");
    expect(byPath["/z"]).toBe("dup");
    expect(byPath["/y"]).toBe("(none)");
    // A policy's name belongs to its backend.
    expect(byPath["/p"]).toBe("(none)");
    const conflicts = diagnostics.filter((d) => d.reason === "Conflicted" && d.field?.endsWith("sessionPersistence"));
    expect(conflicts.map((d) => d.field)).toEqual(["spec.rules[1].sessionPersistence", "spec.rules[3].sessionPersistence"]);
    expect(conflicts[0]!.message).toContain("cookie name dup is already used for Service/east/app/a");
  });

  it("rejects an invalid policy and reports a rule whose backends disagree", async ({ expect }) => {
    const { table, statuses, diagnostics } = await compileYaml(EDGE, {
      east: [
        base("    - backendRefs: [{ name: a, port: 80 }, { name: b, port: 80 }]"),
        policy("pa", "{ kind: Service, name: a }", "{ sessionName: pa }"),
        policy("pb", "{ kind: Service, name: b }", "{ sessionName: pb }"),
        policy("bad", "{ kind: Service, name: a }", "{ cookieConfig: { lifetimeType: Permanent } }"),
        policy("missing", "{ kind: Service, name: nope }", "{ sessionName: m }"),
      ].join("---"),
    });
    expect(table.rules[0]?.session?.name).toBe("pa");
    expect(diagnostics).toContainEqual(
      expect.objectContaining({ severity: "warning", reason: "Conflicted", field: "spec.rules[0].backendRefs" }),
    );
    const byName = Object.fromEntries(
      statuses.filter((s) => s.object.kind === "BackendLBPolicy").map((s) => [s.object.name, s.conditions[0]]),
    );
    expect(byName.bad).toMatchObject({ status: "False", reason: "Invalid" });
    expect(byName.missing).toMatchObject({ status: "False", reason: "TargetNotFound" });
  });

  it("v1.7's header without its name is refused by the schema stage, on a route as on an XBackendTrafficPolicy", async ({ expect }) => {
    const { diagnostics } = await compileYaml(EDGE, {
      east: [
        base("    - sessionPersistence: { type: Header, header: {} }\n      backendRefs: [{ name: a, port: 80 }]"),
        policy("no-name", "{ group: '', kind: Service, name: a }", "{ type: Header, header: {} }", undefined, "XBackendTrafficPolicy"),
      ].join("---"),
    });
    const missing = diagnostics.filter((d) => d.field?.endsWith("sessionPersistence.header.name"));
    expect(missing.map((d) => [d.severity, d.object.kind, d.field, d.message])).toEqual([
      ["error", "HTTPRoute", "spec.rules[0].sessionPersistence.header.name", "is required; the route is not served"],
      ["error", "XBackendTrafficPolicy", "spec.sessionPersistence.header.name", "is required; the object is not served"],
    ]);
  });

  it("a session type other than Cookie or Header is refused by the schema stage, before any translator", async ({ expect }) => {
    const { table, diagnostics } = await compileYaml(EDGE, {
      east: base("    - sessionPersistence: { type: Sticky }\n      backendRefs: [{ name: a, port: 80 }]"),
    });
    expect(table.rules).toHaveLength(0);
    expect(diagnostics).toContainEqual(
      expect.objectContaining({
        severity: "error",
        field: "spec.rules[0].sessionPersistence.type",
        message: "must be one of Cookie, Header; the route is not served",
      }),
    );
  });

  it("an invalid inline sessionPersistence rejects the route", async ({ expect }) => {
    const { table, statuses } = await compileYaml(EDGE, {
      east: base("    - sessionPersistence: { cookieConfig: { lifetimeType: Permanent } }\n      backendRefs: [{ name: a, port: 80 }]"),
    });
    expect(table.rules).toHaveLength(0);
    expect(statuses.find((s) => s.object.kind === "HTTPRoute")?.parents?.[0]?.conditions[0]).toMatchObject({
      type: "Accepted",
      status: "False",
      reason: "UnsupportedValue",
    });
  });

  it("a policy with only a retryConstraint (no sessionPersistence) is accepted and sets its backend's retry budget", async ({ expect }) => {
    const retryOnly = `
apiVersion: gateway.networking.x-k8s.io/v1alpha1
kind: XBackendTrafficPolicy
metadata: { name: budget, namespace: app }
spec:
  targetRefs: [{ group: "", kind: Service, name: a }]
  retryConstraint: { budget: { percent: 50, interval: 30s }, minRetryRate: { count: 3, interval: 2s } }
`;
    const bare = policy("nothing", "{ kind: Service, name: b }", "null").replace("  sessionPersistence: null\n", "");
    const { table, statuses } = await compileYaml(EDGE, {
      east: [base("    - backendRefs: [{ name: a, port: 80 }, { name: b, port: 80 }]"), retryOnly, bare].join("---"),
    });
    expect(table.rules[0]?.session).toBeUndefined();
    expect(table.backends["Service/east/app/a:80"]?.retryBudget).toEqual({
      percent: 50,
      intervalMs: 30_000,
      minRetries: 3,
      minIntervalMs: 2000,
    });
    expect(table.backends["Service/east/app/b:80"]?.retryBudget).toBeUndefined();
    expect(statuses.filter((s) => s.object.kind.endsWith("Policy")).map((s) => [s.object.name, s.conditions[0]?.status])).toEqual([
      ["nothing", "True"],
      ["budget", "True"],
    ]);
  });

  it("rejects a retryConstraint out of range with the field named", async ({ expect }) => {
    const { diagnostics } = await compileYaml(EDGE, {
      east: [
        base("    - backendRefs: [{ name: a, port: 80 }]"),
        `apiVersion: gateway.networking.x-k8s.io/v1alpha1
kind: XBackendTrafficPolicy
metadata: { name: budget, namespace: app }
spec:
  targetRefs: [{ group: "", kind: Service, name: a }]
  retryConstraint: { budget: { percent: 120 } }
`,
      ].join("---\n"),
    });
    expect(diagnostics).toContainEqual(
      expect.objectContaining({
        severity: "error",
        field: "spec.retryConstraint.budget.percent",
        reason: "UnsupportedValue",
        message: "must be <= 100; the object is not served",
      }),
    );
  });
});

describe("an XBackend's own session persistence (Gateway API v1.7)", () => {
  const EDGE_XB = EDGE.replace("clusters:", "egress: { allowedHostnames: ['*.partner.example'] }, clusters:");
  const xbackend = (name: string, persistence: string, created = "2026-01-01T00:00:00Z") => `
apiVersion: gateway.networking.x-k8s.io/v1alpha1
kind: XBackend
metadata: { name: ${name}, namespace: app, creationTimestamp: "${created}" }
spec:
  type: ExternalHostname
  externalHostname: { hostname: ${name}.partner.example }
  port: { port: 443 }
  tls: { mode: ServerOnly }
  sessionPersistence: ${persistence}
`;
  const toXB = (name: string) => `{ group: gateway.networking.x-k8s.io, kind: XBackend, name: ${name} }`;
  const sessionOf = (table: { matches: { path: { value: string }; rule: number }[]; rules: { session?: unknown }[] }, path: string) =>
    table.rules[table.matches.find((m) => m.path.value === path)!.rule]?.session;

  it("applies to every rule of every route that sends to it, in v1.7's shape or the released one", async ({ expect }) => {
    const other = `\n${gatewayAndRoute({
      namespace: "app",
      route: "other",
      hostname: "other.example",
      rules: `    - matches: [{ path: { type: PathPrefix, value: /other } }]\n      backendRefs: [${toXB("partner")}]`,
    })}`
      .replace("name: gw,", "name: gw2,")
      .replace("parentRefs: [{ name: gw }]", "parentRefs: [{ name: gw2 }]");
    const { table, statuses, diagnostics } = await compileYaml(EDGE_XB, {
      east: [
        base(`    - matches: [{ path: { type: PathPrefix, value: /a } }]
      backendRefs: [${toXB("partner")}]
    - matches: [{ path: { type: PathPrefix, value: /b } }]
      backendRefs: [${toXB("partner")}]
    - matches: [{ path: { type: PathPrefix, value: /legacy } }]
      backendRefs: [${toXB("legacy")}]`),
        other,
        xbackend("partner", "{ type: Cookie, absoluteTimeout: 1h, cookie: { name: partner, path: /a, lifetimeType: Permanent } }"),
        xbackend("legacy", "{ sessionName: legacy, idleTimeout: 30m }"),
      ].join("---"),
    });
    const partner = { type: "Cookie", name: "partner", path: "/a", lifetime: "Permanent", absoluteTimeoutMs: 3_600_000 };
    expect(sessionOf(table, "/a")).toEqual({ scope: "app/web/rule/0", sameSite: "Strict", ...partner });
    // One backend, several rules and routes: each keeps its own sessions (the scope), under the XBackend's name.
    expect(sessionOf(table, "/b")).toMatchObject({ scope: "app/web/rule/1", ...partner });
    expect(sessionOf(table, "/other")).toMatchObject({ scope: "app/other/rule/0", ...partner });
    expect(sessionOf(table, "/legacy")).toMatchObject({ type: "Cookie", name: "legacy", idleTimeoutMs: 1_800_000 });
    const accepted = statuses.find((s) => s.object.kind === "XBackend" && s.object.name === "partner")?.conditions[0];
    expect(accepted).toMatchObject({ status: "True", message: "https://partner.partner.example:443" });
    // Declared where v1.7 wants it: nothing to warn about.
    expect(diagnostics.filter((d) => d.reason === "Conflicted" || d.reason === "Deprecated")).toEqual([]);
  });

  it("refuses an XBackend whose sessionPersistence is invalid, naming the field", async ({ expect }) => {
    const { statuses, diagnostics } = await compileYaml(EDGE_XB, {
      east: [
        base(`    - backendRefs: [${toXB("broken")}]`),
        xbackend("broken", "{ cookie: { name: b, path: relative } }"),
        xbackend("forever", "{ cookie: { lifetimeType: Forever } }"),
      ].join("---"),
    });
    const broken = statuses.find((s) => s.object.name === "broken")?.conditions[0];
    expect(broken).toMatchObject({ type: "Accepted", status: "False", reason: "UnsupportedValue" });
    expect(diagnostics).toContainEqual(
      expect.objectContaining({ severity: "error", field: "spec.sessionPersistence.cookie.path", reason: "UnsupportedValue" }),
    );
    // v1.7's enum is checked by the schema stage, before the XBackend is compiled.
    expect(diagnostics).toContainEqual(
      expect.objectContaining({
        severity: "error",
        field: "spec.sessionPersistence.cookie.lifetimeType",
        message: expect.stringContaining("Session, Permanent"),
      }),
    );
  });

  it("comes first: before the rule's own, which comes before a policy's; each disagreement is Conflicted, each deprecated place an info", async ({
    expect,
  }) => {
    const { table, statuses, diagnostics } = await compileYaml(EDGE_XB, {
      east: [
        base(`    - matches: [{ path: { type: PathPrefix, value: /rule-vs-xbackend } }]
      sessionPersistence: { type: Header, header: { name: x-rule } }
      backendRefs: [${toXB("partner")}]
    - matches: [{ path: { type: PathPrefix, value: /xbackend-and-policy } }]
      backendRefs: [{ name: a, port: 80 }, ${toXB("partner")}]
    - matches: [{ path: { type: PathPrefix, value: /rule-vs-policy } }]
      sessionPersistence: { sessionName: rule }
      backendRefs: [{ name: a, port: 80 }]
    - matches: [{ path: { type: PathPrefix, value: /policy } }]
      backendRefs: [{ name: a, port: 80 }]`),
        xbackend("partner", "{ type: Cookie, cookie: { name: partner } }"),
        policy("on-a", "{ kind: Service, name: a }", "{ sessionName: from-policy }"),
        policy("on-partner", toXB("partner"), "{ sessionName: other }", undefined, "XBackendTrafficPolicy"),
      ].join("---"),
    });
    expect(sessionOf(table, "/rule-vs-xbackend")).toMatchObject({ type: "Cookie", name: "partner" });
    expect(sessionOf(table, "/xbackend-and-policy")).toMatchObject({ type: "Cookie", name: "partner" });
    expect(sessionOf(table, "/rule-vs-policy")).toMatchObject({ type: "Cookie", name: "rule" });
    expect(sessionOf(table, "/policy")).toMatchObject({ type: "Cookie", name: "from-policy" });

    const about = (reason: string) =>
      diagnostics.filter((d) => d.reason === reason).map((d) => `${d.severity} ${d.object.kind}/${d.object.name} ${d.field}: ${d.message}`);
    expect(about("Conflicted")).toEqual([
      "error XBackendTrafficPolicy/on-partner spec.targetRefs: XBackend/east/app/partner declares its own sessionPersistence; an XBackend's own sessionPersistence comes before a policy's (Gateway API v1.7)",
      "warning HTTPRoute/web spec.rules[0].sessionPersistence: XBackend east/app/partner declares its own sessionPersistence, which applies to this rule (Gateway API v1.7: it belongs to the backend); the rule's own is not used",
      "warning HTTPRoute/web spec.rules[1].backendRefs: backends of this rule carry different session persistence (XBackend east/app/partner and BackendLBPolicy east/app/on-a); XBackend east/app/partner applies to the whole rule (a backend's own comes before a policy's)",
      "warning HTTPRoute/web spec.rules[2].sessionPersistence: the rule's own sessionPersistence applies, not the one BackendLBPolicy east/app/on-a sets on its backends (a rule's comes before a policy's)",
    ]);
    expect(statuses.find((s) => s.object.name === "on-partner")?.conditions[0]).toMatchObject({ status: "False", reason: "Conflicted" });
    const deprecated = diagnostics.filter((d) => d.reason === "Deprecated");
    expect(deprecated.map((d) => [d.severity, d.object.name, d.field])).toEqual([
      ["info", "on-a", "spec.sessionPersistence"],
      ["info", "web", "spec.rules[0].sessionPersistence"],
      ["info", "web", "spec.rules[2].sessionPersistence"],
    ]);
    expect(deprecated[1]!.message).toContain("declare it on the XBackend (spec.sessionPersistence)");
  });

  it("one name, one backend: a second XBackend naming the same cookie is served without sessions, and warned", async ({ expect }) => {
    const { table, statuses, diagnostics } = await compileYaml(EDGE_XB, {
      east: [
        base(`    - matches: [{ path: { type: PathPrefix, value: /first } }]
      backendRefs: [${toXB("first")}]
    - matches: [{ path: { type: PathPrefix, value: /second } }]
      backendRefs: [${toXB("second")}]`),
        xbackend("second", "{ cookie: { name: shared } }", "2026-02-01T00:00:00Z"),
        xbackend("first", "{ cookie: { name: shared } }", "2026-01-01T00:00:00Z"),
      ].join("---"),
    });
    expect(sessionOf(table, "/first")).toMatchObject({ name: "shared" });
    expect(sessionOf(table, "/second")).toBeUndefined();
    expect(diagnostics).toContainEqual(
      expect.objectContaining({
        severity: "warning",
        object: expect.objectContaining({ kind: "XBackend", name: "second" }),
        field: "spec.sessionPersistence",
        reason: "Conflicted",
        message: expect.stringContaining("cookie name shared is already used for XBackend/east/app/first"),
      }),
    );
    expect(statuses.find((s) => s.object.name === "second")?.conditions[0]).toMatchObject({ status: "True" });
  });

  it("copies of an XBackend in several clusters are one backend: one name is no conflict, different settings are reported", async ({
    expect,
  }) => {
    const route = base(`    - backendRefs: [${toXB("partner")}]`);
    const same = await compileYaml(EDGE_XB, {
      east: [route, xbackend("partner", "{ cookie: { name: p } }")].join("---"),
      west: [route, xbackend("partner", "{ cookie: { name: p } }")].join("---"),
    });
    expect(same.table.rules[0]?.session).toMatchObject({ name: "p", scope: "app/web/rule/0" });
    expect(same.diagnostics.filter((d) => d.reason === "Conflicted")).toEqual([]);

    const differing = await compileYaml(EDGE_XB, {
      east: [route, xbackend("partner", "{ cookie: { name: p } }")].join("---"),
      west: [route, xbackend("partner", "{ cookie: { name: p }, absoluteTimeout: 1h }")].join("---"),
    });
    expect(differing.table.rules[0]?.session).toMatchObject({ name: "p" });
    expect(differing.table.rules[0]?.session).not.toHaveProperty("absoluteTimeoutMs");
    expect(differing.diagnostics).toContainEqual(
      expect.objectContaining({
        severity: "warning",
        field: "spec.rules[0].backendRefs",
        reason: "Conflicted",
        message: expect.stringContaining("(XBackend east/app/partner and XBackend west/app/partner); XBackend east/app/partner applies"),
      }),
    );
  });
});
