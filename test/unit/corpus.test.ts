/**
 * Manifests as users bring them (written for these tests in the shapes Istio's bookinfo, Envoy Gateway's
 * quickstart, Cilium's examples and `kubectl get -o yaml` produce): each syncs without a crash, and every
 * object in it is served, reported with a reason, or refused. Nothing is dropped in silence.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "vitest";
import { parse } from "yaml";
import { compileRouteTable, type CompileResult } from "../../src/compile/compile-route-table";
import { parseEdgeConfig } from "../../src/compile/input/edge-config";
import type { Manifest } from "../../src/gateway-api/manifest";
import { parseManifestFile } from "../../src/gateway-api/parse-manifests";
import { errorCount } from "../../scripts/report/report";

const CORPUS = join(import.meta.dirname, "..", "fixtures", "corpus");

async function syncCorpus(file: string, gatewayClassName: string): Promise<{ manifests: Manifest[]; result: CompileResult }> {
  const edge = parseEdgeConfig(
    parse(`apiVersion: kedge.dev/v1alpha1
kind: EdgeConfig
metadata: { name: corpus }
spec: { gatewayClassName: ${gatewayClassName}, clusters: [{ name: c1 }] }`),
    "kedge.yaml",
  );
  const { manifests } = parseManifestFile("c1", `clusters/c1/${file}`, readFileSync(join(CORPUS, file), "utf8"));
  return { manifests, result: await compileRouteTable(edge, manifests) };
}

const key = (o: { kind: string; namespace?: string; name: string }) => `${o.kind} ${o.namespace ?? ""}/${o.name}`;

/** Objects neither served, nor in a status, nor named by a diagnostic. */
function unaccounted(manifests: Manifest[], result: CompileResult): string[] {
  const told = new Set([...result.statuses.map((s) => key(s.object)), ...result.diagnostics.map((d) => key(d.object))]);
  const backing = new Set(Object.values(result.table.backends).map((b) => `Service ${b.source.namespace}/${b.source.name}`));
  return (
    manifests
      .map((m) => ({ kind: m.kind, namespace: m.metadata.namespace, name: m.metadata.name }))
      .filter((o) => !told.has(key(o)))
      .filter((o) => !backing.has(key(o)))
      // A Service or EndpointSlice no route names has nothing to serve: it is context, not an instruction.
      .filter((o) => o.kind !== "Service" && o.kind !== "EndpointSlice")
      .map(key)
  );
}

const findings = (r: CompileResult, severity: string) =>
  r.diagnostics.filter((d) => d.severity === severity).map((d) => `${d.object.kind} ${d.object.name}: ${d.reason}`);

describe("manifests as users bring them", () => {
  it("Istio's bookinfo: the Gateway API Gateway is served beside Istio's own Gateway of the same name; Istio's AuthorizationPolicy on it is refused", async ({
    expect,
  }) => {
    const { manifests, result } = await syncCorpus("istio-bookinfo.yaml", "istio");
    expect(result.table.rules.map((r) => r.id)).toEqual(["c1/default/bookinfo/rule/0"]);
    expect(result.table.rules[0]!.backendRefs[0]!.backend).toBe("Service/c1/default/productpage:9080");
    expect(findings(result, "error")).toEqual(["AuthorizationPolicy productpage-viewer: NotEnforced"]);
    expect(
      result.diagnostics.find((d) => d.object.kind === "Gateway" && d.object.apiVersion === "networking.istio.io/v1")?.message,
    ).toContain("a Gateway of networking.istio.io is not the Gateway kedge reads");
    expect(unaccounted(manifests, result)).toEqual([]);
  });

  it("Envoy Gateway's quickstart: served, and its SecurityPolicy and BackendTrafficPolicy are refused as not enforced", async ({
    expect,
  }) => {
    const { manifests, result } = await syncCorpus("envoy-gateway-quickstart.yaml", "eg");
    expect(result.table.rules.map((r) => r.id)).toEqual(["c1/default/backend/rule/0"]);
    expect(findings(result, "error")).toEqual([
      "SecurityPolicy basic-auth-example: NotEnforced",
      "BackendTrafficPolicy policy-for-gateway: NotEnforced",
    ]);
    expect(errorCount(result.diagnostics)).toBe(2);
    expect(unaccounted(manifests, result)).toEqual([]);
  });

  it("Cilium's example: HTTP and HTTPS listeners served, the GRPCRoute refused with why, the listener certificate explained", async ({
    expect,
  }) => {
    const { manifests, result } = await syncCorpus("cilium-gateway.yaml", "cilium");
    expect(result.table.listeners.map((l) => `${l.protocol} ${l.port}`)).toEqual(["HTTP 80", "HTTPS 443"]);
    expect(findings(result, "error")).toEqual(["GRPCRoute grpc-route: NotAllowedByListeners"]);
    expect(findings(result, "info")).toContain("Gateway my-gateway: EdgeCertificate");
    expect(unaccounted(manifests, result)).toEqual([]);
  });

  it("kubectl get -o yaml: a List with status, managedFields and the last-applied annotation syncs clean", async ({ expect }) => {
    const { manifests, result } = await syncCorpus("kubectl-dump.yaml", "kedge");
    expect(manifests.map((m) => m.kind)).toEqual(["Gateway", "HTTPRoute", "Service", "Service", "EndpointSlice"]);
    expect(result.diagnostics).toEqual([]);
    expect(result.table.backends["Service/c1/shop/store:80"]?.endpoints.map((e) => `${e.host}:${e.port} ${e.zone}`)).toEqual([
      "10.244.2.31:8080 eu-west-1b",
    ]);
    expect(unaccounted(manifests, result)).toEqual([]);
  });
});
