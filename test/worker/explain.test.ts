/**
 * `kedge explain` tells what the Worker does: for every request of the conformance tables, the rule it
 * explains is the one the real Worker then serves the request by (the echo origin names the endpoint that
 * answered, which must be one explain lists in the pool of a backend with a share), and a request it
 * explains as unmatched is the Worker's 404.
 */
import { exports } from "cloudflare:workers";
import { describe, inject, it } from "vitest";
import { explainRequest } from "../../src/routing/explain";
import { prepareTable } from "../../src/routing/prepared-table";
import { CONFORMANCE_CASES, requestFacts } from "../cases/conformance.cases";
import { infraYaml } from "../support/conformance-infra";
import { seedYaml } from "./seed-table";

describe("explain against the Worker", () => {
  for (const c of CONFORMANCE_CASES) {
    it(c.name, async ({ expect }) => {
      const ports = inject("originPorts");
      const byPort = new Map(Object.entries(ports).map(([v, port]) => [`c1/127.0.0.1:${port}`, `infra-backend-${v}`]));
      const prepared = prepareTable(await seedYaml(`${infraYaml(ports)}---${c.routes}`));
      for (const req of c.requests) {
        const { url, facts } = requestFacts(req);
        const explained = explainRequest(prepared, facts);
        const response = await exports.default.fetch(new Request(url, { method: req.method ?? "GET", headers: req.headers }));
        const label = `${req.method ?? "GET"} ${url.host}${req.path}`;
        if (!explained.rule) {
          expect(response.status, label).toBe(404);
          await response.body?.cancel();
          continue;
        }
        expect(
          explained.candidates.filter((x) => x.verdict === "chosen"),
          label,
        ).toHaveLength(1);
        const offered = explained.backends
          .filter((b) => b.share > 0)
          .flatMap((b) => b.endpoints.filter((e) => e.inPool).map((e) => byPort.get(e.id)));
        expect(response.status, label).toBe(200);
        expect(offered, label).toContain(((await response.json()) as { endpoint: string }).endpoint);
      }
    });
  }

  it("says why each other candidate lost", async ({ expect }) => {
    const prepared = prepareTable(await seedYaml(`${infraYaml(inject("originPorts"))}---${CONFORMANCE_CASES[0]!.routes}`));
    const explained = explainRequest(prepared, {
      protocol: "HTTP",
      host: "example.org",
      port: 80,
      path: "/v2/example",
      method: "GET",
      headers: new Headers(),
      query: new URLSearchParams(),
    });
    const verdicts = explained.candidates.map((c) => c.verdict);
    expect(verdicts).toContain("chosen");
    expect(verdicts.some((v) => v.startsWith("holds, but ranks lower: path: a longer PathPrefix"))).toBe(true);
    expect(verdicts.some((v) => v === "header version is missing")).toBe(true);
  });
});
