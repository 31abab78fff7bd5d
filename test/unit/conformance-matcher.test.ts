import { describe, it } from "vitest";
import { matchRequest } from "../../src/routing/match-request";
import { prepareTable } from "../../src/routing/prepared-table";
import { CONFORMANCE_CASES, requestFacts } from "../cases/conformance.cases";
import { compileYaml } from "../support/compile-fixture";
import { EDGE_YAML, infraYaml } from "../support/conformance-infra";

describe("pure matcher against the conformance request tables", () => {
  for (const c of CONFORMANCE_CASES) {
    it(c.name, async ({ expect }) => {
      const { table, diagnostics } = await compileYaml(EDGE_YAML, { c1: `${infraYaml({ v1: 1, v2: 2, v3: 3 })}---${c.routes}` });
      expect(diagnostics.filter((d) => d.severity === "error" && d.object.name !== "route-E")).toEqual([]);
      const prepared = prepareTable(table);
      for (const req of c.requests) {
        const match = matchRequest(prepared, requestFacts(req).facts);
        const backendId = match?.rule.backendRefs[0]?.backend;
        const got = match ? { backend: table.backends[backendId ?? ""]?.source.name.replace("infra-backend-", "") } : { status: 404 };
        expect(got, `${req.method ?? "GET"} ${req.host ?? ""}${req.path} ${JSON.stringify(req.headers ?? {})}`).toEqual(req.expect);
      }
    });
  }
});
