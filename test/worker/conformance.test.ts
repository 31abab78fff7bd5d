import { exports } from "cloudflare:workers";
import { describe, inject, it } from "vitest";
import { CONFORMANCE_CASES } from "../cases/conformance.cases";
import { infraYaml } from "../support/conformance-infra";
import { seedYaml } from "./seed-table";

describe("the real Worker against the conformance request tables", () => {
  for (const c of CONFORMANCE_CASES) {
    it(c.name, async ({ expect }) => {
      await seedYaml(`${infraYaml(inject("originPorts"))}---${c.routes}`);
      for (const req of c.requests) {
        const response = await exports.default.fetch(
          new Request(`http://${req.host ?? "example.org"}${req.path}`, { method: req.method ?? "GET", headers: req.headers }),
        );
        const label = `${req.method ?? "GET"} ${req.host ?? ""}${req.path} ${JSON.stringify(req.headers ?? {})}`;
        if ("status" in req.expect) {
          expect(response.status, label).toBe(req.expect.status);
          // A HEAD answer carries no body.
          if (req.method !== "HEAD") expect(await response.json(), label).toMatchObject({ error: "ROUTE_NOT_FOUND" });
        } else {
          expect(response.status, label).toBe(200);
          const body = (await response.json()) as { endpoint: string };
          expect(body.endpoint, label).toBe(`infra-backend-${req.expect.backend}`);
        }
      }
    });
  }
});
