/**
 * @module Synthetic configs for the benchmarks: N routes spread over H hostnames in C clusters, each
 * route one rule with one match of a chosen kind, and requests that hit them.
 */
import type { Manifest } from "../../../src/gateway-api/manifest";
import type { EdgeConfig } from "../../../src/compile/input/edge-config";
import type { RequestFacts } from "../../../src/routing/match-request";

export type MatchKind = "exact" | "prefix" | "header" | "regex";

export interface BenchConfig {
  routes: number;
  hosts: number;
  clusters: number;
  kind: MatchKind;
  /** Loopback port every endpoint points at. */
  originPort?: number;
}

const NS = "bench";

function manifest(
  cluster: string,
  kind: string,
  name: string,
  body: Record<string, unknown>,
  labels: Record<string, string> = {},
): Manifest {
  const apiVersion = kind === "Service" ? "v1" : kind === "EndpointSlice" ? "discovery.k8s.io/v1" : "gateway.networking.k8s.io/v1";
  const raw = { apiVersion, kind, metadata: { name, namespace: NS, labels }, ...body };
  return {
    cluster,
    file: `bench/${cluster}.json`,
    line: 1,
    apiVersion,
    kind,
    metadata: { name, namespace: NS, labels },
    spec: (body.spec as Record<string, unknown>) ?? {},
    status: {},
    raw,
  };
}

export const hostOf = (i: number, hosts: number) => `h${i % hosts}.bench.example`;

function match(kind: MatchKind, i: number): Record<string, unknown> {
  switch (kind) {
    case "exact":
      return { path: { type: "Exact", value: `/api/v${i}/item` } };
    case "prefix":
      return { path: { type: "PathPrefix", value: `/api/v${i}` } };
    case "header":
      return { headers: [{ name: "x-route", value: `r${i}` }] };
    case "regex":
      return { path: { type: "RegularExpression", value: `/api/v${i}/[0-9]+` } };
  }
}

/** A path (and headers) that the route `i` matches. */
export function requestFor(kind: MatchKind, i: number, hosts: number): RequestFacts {
  const path = kind === "exact" ? `/api/v${i}/item` : kind === "prefix" ? `/api/v${i}/x` : kind === "regex" ? `/api/v${i}/42` : "/";
  const headers = new Headers(kind === "header" ? { "x-route": `r${i}` } : {});
  return { protocol: "HTTP", host: hostOf(i, hosts), path, method: "GET", headers, query: new URLSearchParams(), port: 80 };
}

export function benchEdge(clusters: number): EdgeConfig {
  return {
    name: "bench",
    gatewayClassName: "kedge",
    controllerName: "kedge.dev/edge",
    clusters: Array.from({ length: clusters }, (_, c) => ({
      name: `c${c}`,
      weight: 1,
      state: "Serving" as const,
      priority: 0,
      endpoints: { from: "EndpointSlice" as const, scheme: "http" as const },
    })),
    failover: { minHealthyEndpoints: 1 },
    egress: { allowLocalhost: false, clientCertificates: {} },
    sessions: { sameSite: "Strict" },
    acknowledgedPolicies: [],
  };
}

/** Manifests of every cluster: one Gateway per cluster, 10 Services, routes dealt round-robin; with `sessions`, odd routes keep cookie sessions. */
export function benchManifests(config: BenchConfig, sessions = false): Manifest[] {
  const out: Manifest[] = [];
  for (let c = 0; c < config.clusters; c++) {
    const cluster = `c${c}`;
    out.push(
      manifest(cluster, "Gateway", "gw", {
        spec: { gatewayClassName: "kedge", listeners: [{ name: "http", protocol: "HTTP", port: 80 }] },
      }),
    );
    for (let s = 0; s < 10; s++) {
      out.push(manifest(cluster, "Service", `svc${s}`, { spec: { ports: [{ name: "http", port: 8080 }] } }));
      out.push(
        manifest(
          cluster,
          "EndpointSlice",
          `svc${s}-1`,
          { addressType: "IPv4", ports: [{ name: "http", port: config.originPort ?? 9 }], endpoints: [{ addresses: ["127.0.0.1"] }] },
          { "kubernetes.io/service-name": `svc${s}` },
        ),
      );
    }
  }
  for (let i = 0; i < config.routes; i++) {
    const cluster = `c${i % config.clusters}`;
    out.push(
      manifest(cluster, "HTTPRoute", `r${i}`, {
        spec: {
          parentRefs: [{ name: "gw" }],
          hostnames: [hostOf(i, config.hosts)],
          rules: [
            {
              matches: [match(config.kind, i)],
              backendRefs: [{ name: `svc${i % 10}`, port: 8080 }],
              ...(sessions && i % 2 === 1 ? { sessionPersistence: { type: "Cookie" } } : {}),
            },
          ],
        },
      }),
    );
  }
  return out;
}
