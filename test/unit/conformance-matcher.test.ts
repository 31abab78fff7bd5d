import { describe, it } from "vitest";
import { matchRequest } from "../../src/routing/match-request";
import { prepareTable } from "../../src/routing/prepared-table";
import { CONFORMANCE_CASES, type RequestCase } from "../cases/conformance.cases";
import { compileYaml } from "../support/compile-fixture";
import { EDGE_YAML, infraYaml } from "../support/conformance-infra";

function facts(req: RequestCase) {
  const url = new URL(req.path, `http://${req.host ?? "example.org"}`);
  return {
    protocol: "HTTP" as const,
    host: url.hostname,
    port: url.port ? Number(url.port) : 80,
    path: url.pathname,
    method: req.method ?? "GET",
    headers: new Headers(req.headers),
    query: url.searchParams,
  };
}

describe("pure matcher against the conformance request tables", () => {
  for (const c of CONFORMANCE_CASES) {
    it(c.name, async ({ expect }) => {
      const { table, diagnostics } = await compileYaml(EDGE_YAML, { c1: `${infraYaml({ v1: 1, v2: 2, v3: 3 })}---${c.routes}` });
      expect(diagnostics.filter((d) => d.severity === "error" && d.object.name !== "route-E")).toEqual([]);
      const prepared = prepareTable(table);
      for (const req of c.requests) {
        const match = matchRequest(prepared, facts(req));
        const backendId = match?.rule.backendRefs[0]?.backend;
        const got = match ? { backend: table.backends[backendId ?? ""]?.source.name.replace("infra-backend-", "") } : { status: 404 };
        expect(got, `${req.method ?? "GET"} ${req.host ?? ""}${req.path} ${JSON.stringify(req.headers ?? {})}`).toEqual(req.expect);
      }
    });
  }
});
