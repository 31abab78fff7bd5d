/** ListenerSet (GEP-1713, standard since v1.5): listeners of their Gateway once it allows them; routes name the set as parent. */
import { describe, it } from "vitest";
import { compileYaml } from "../support/compile-fixture";
import { edgeConfig } from "../support/manifests";
import { matchRequest } from "../../src/routing/match-request";
import { prepareTable } from "../../src/routing/prepared-table";

const gateway = (allowed: string) => `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: { name: shared, namespace: infra }
spec:
  gatewayClassName: kedge
${allowed}  listeners: [{ name: main, protocol: HTTP, port: 80, hostname: main.example.com, allowedRoutes: { namespaces: { from: All } } }]
`;

const SET = `apiVersion: gateway.networking.k8s.io/v1
kind: ListenerSet
metadata: { name: team-a, namespace: team-a }
spec:
  parentRef: { name: shared, namespace: infra }
  listeners:
    - { name: app, protocol: HTTP, port: 80, hostname: a.example.com }
    - { name: clash, protocol: HTTP, port: 80, hostname: main.example.com }
`;

const ROUTE = `apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: { name: app, namespace: team-a }
spec:
  parentRefs: [{ group: gateway.networking.k8s.io, kind: ListenerSet, name: team-a, sectionName: app }]
  rules: [{ backendRefs: [{ name: app, port: 8080 }] }]
---
apiVersion: v1
kind: Service
metadata: { name: app, namespace: team-a }
spec: { ports: [{ name: http, port: 8080 }] }
`;

const docs = (...d: string[]) => d.join("---\n");

describe("ListenerSet", () => {
  it("serves a set's listeners as listeners of its Gateway when the Gateway allows the set's namespace", async ({ expect }) => {
    const { table, statuses, diagnostics } = await compileYaml(edgeConfig("t"), {
      c1: docs(gateway("  allowedListeners: { namespaces: { from: All } }\n"), SET, ROUTE),
    });
    expect(table.listeners.map((l) => `${l.id} ${l.hostname}`)).toEqual([
      "c1/infra/shared/main main.example.com",
      "c1/team-a/team-a/app a.example.com",
    ]);
    const prepared = prepareTable(table);
    const request = {
      protocol: "HTTP" as const,
      host: "a.example.com",
      path: "/",
      method: "GET",
      headers: new Headers(),
      query: { get: () => null },
    };
    expect(matchRequest(prepared, request)?.rule.id).toBe("c1/team-a/app/rule/0");
    const set = statuses.find((s) => s.object.kind === "ListenerSet");
    expect(set?.conditions[0]).toMatchObject({ type: "Accepted", status: "True" });
    expect(set?.listeners?.map((l) => [l.name, l.attachedRoutes, l.conditions[0]?.reason])).toEqual([
      ["app", 1, "Accepted"],
      ["clash", 0, "HostnameConflict"],
    ]);
    expect(statuses.find((s) => s.object.kind === "Gateway")?.attachedListenerSets).toBe(1);
    const route = statuses.find((s) => s.object.kind === "HTTPRoute");
    expect(route?.parents?.[0]).toMatchObject({ parentRef: { kind: "ListenerSet", name: "team-a" } });
    expect(diagnostics.filter((d) => d.severity === "error").map((d) => d.reason)).toEqual(["HostnameConflict"]);
  });

  it("is refused, with the reason, by a Gateway that does not allow ListenerSets (the default)", async ({ expect }) => {
    const { table, statuses, diagnostics } = await compileYaml(edgeConfig("t"), { c1: docs(gateway(""), SET, ROUTE) });
    expect(table.listeners).toHaveLength(1);
    expect(statuses.find((s) => s.object.kind === "ListenerSet")?.conditions[0]).toMatchObject({
      status: "False",
      reason: "NotAllowed",
      message: expect.stringContaining("does not take ListenerSets"),
    });
    expect(diagnostics).toContainEqual(expect.objectContaining({ severity: "error", reason: "NotAllowed" }));
  });
});

describe("route kinds the edge does not serve", () => {
  it("a GRPCRoute on a served Gateway is reported per parent with why, not silently skipped", async ({ expect }) => {
    const grpc = `apiVersion: gateway.networking.k8s.io/v1
kind: GRPCRoute
metadata: { name: rpc, namespace: infra }
spec:
  parentRefs: [{ name: shared }]
  rules: [{ backendRefs: [{ name: rpc, port: 9000 }] }]
`;
    const { statuses, diagnostics } = await compileYaml(edgeConfig("t"), { c1: docs(gateway(""), grpc) });
    const status = statuses.find((s) => s.object.kind === "GRPCRoute");
    expect(status?.parents?.[0]?.conditions[0]).toMatchObject({ status: "False", reason: "NotAllowedByListeners" });
    expect(diagnostics).toContainEqual(
      expect.objectContaining({ severity: "error", reason: "NotAllowedByListeners", message: expect.stringContaining("HTTP/2") }),
    );
  });
});

describe("a ListenerSet or a route through one that nothing would otherwise mention", () => {
  const setTo = (gatewayName: string) => SET.replace("name: shared, namespace: infra", `name: ${gatewayName}, namespace: infra`);
  const routeThroughSet = (kind: "GRPCRoute" | "TLSRoute") => `apiVersion: gateway.networking.k8s.io/v1
kind: ${kind}
metadata: { name: r, namespace: team-a }
spec:
  parentRefs: [{ group: gateway.networking.k8s.io, kind: ListenerSet, name: team-a }]
${kind === "TLSRoute" ? "  hostnames: [a.example.com]\n" : ""}  rules: [{ backendRefs: [{ name: app, port: 8080 }] }]
`;

  it("a set naming a Gateway its cluster does not have is a warning naming the Gateways served there", async ({ expect }) => {
    const { table, statuses, diagnostics } = await compileYaml(edgeConfig("t"), {
      c1: docs(gateway("  allowedListeners: { namespaces: { from: All } }\n"), setTo("shraed")),
    });
    expect(table.listeners).toHaveLength(1);
    expect(diagnostics).toContainEqual(
      expect.objectContaining({
        severity: "warning",
        reason: "NoMatchingParent",
        field: "spec.parentRef",
        message:
          "cluster c1 has no Gateway infra/shraed (a ListenerSet attaches to a Gateway of its own cluster): the set's listeners are not served; Gateways served in cluster c1: infra/shared",
      }),
    );
    expect(statuses.find((s) => s.object.kind === "ListenerSet")?.conditions[0]).toMatchObject({
      type: "Accepted",
      status: "False",
      reason: "NoMatchingParent",
    });
  });

  it.for(["GRPCRoute", "TLSRoute"] as const)(
    "a %s through a set its Gateway does not take is told, per parent, why the edge does not serve it",
    async (kind, { expect }) => {
      const { statuses, diagnostics } = await compileYaml(edgeConfig("t"), { c1: docs(gateway(""), SET, routeThroughSet(kind)) });
      // The set is refused (NotAllowed), and the route through it is not left unsaid.
      expect(diagnostics.map((d) => [d.object.kind, d.severity, d.reason])).toEqual(
        expect.arrayContaining([
          ["ListenerSet", "error", "NotAllowed"],
          [kind, "error", "NotAllowedByListeners"],
        ]),
      );
      const route = statuses.find((s) => s.object.kind === kind);
      expect(route?.parents?.[0]).toMatchObject({
        parentRef: { name: "team-a" },
        conditions: [expect.objectContaining({ status: "False", reason: "NotAllowedByListeners" })],
      });
    },
  );

  it("a TLSRoute through a set whose listeners are served is told too", async ({ expect }) => {
    const { diagnostics } = await compileYaml(edgeConfig("t"), {
      c1: docs(gateway("  allowedListeners: { namespaces: { from: All } }\n"), SET, routeThroughSet("TLSRoute")),
    });
    expect(diagnostics).toContainEqual(
      expect.objectContaining({ severity: "error", reason: "NotAllowedByListeners", message: expect.stringContaining("SNI") }),
    );
  });
});

describe("GatewayClass", () => {
  it("the served class gets the status a controller writes: Accepted, with the features kedge supports", async ({ expect }) => {
    const gatewayClass = `apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: { name: kedge }
spec: { controllerName: kedge.dev/edge }
---
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: { name: other }
spec: { controllerName: example.com/other }
`;
    const { statuses } = await compileYaml(edgeConfig("t"), { c1: docs(gatewayClass, gateway("")) });
    const classes = statuses.filter((s) => s.object.kind === "GatewayClass");
    expect(classes.map((s) => s.object.name)).toEqual(["kedge"]);
    expect(classes[0]?.conditions[0]).toMatchObject({ type: "Accepted", status: "True" });
    expect(classes[0]?.supportedFeatures).toEqual(expect.arrayContaining(["Gateway", "HTTPRoute", "HTTPRouteCORS", "ListenerSet"]));
    expect(classes[0]?.supportedFeatures).not.toContain("GRPCRoute");
  });
});
