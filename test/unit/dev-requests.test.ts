/**
 * What `kedge dev` prints to try: a curl per served rule with what that rule matches (its first Exact or
 * PathPrefix value, `/` for a rule without path matches, and its method, headers and query), and the `.dev.vars` secrets still holding
 * `kedge init`'s placeholders.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "vitest";
import { requestsToTry } from "../../scripts/dev/dev-requests";
import { placeholderSecrets, readDevVars } from "../../scripts/dev/dev-vars";
import { compileYaml } from "../support/compile-fixture";
import { edgeConfig, endpointSlice, gatewayAndRoute, service, yamlDocs } from "../support/manifests";

const BASE = "http://127.0.0.1:8787";

const tableOf = async (hostname: string | undefined, rules: string) =>
  (
    await compileYaml(edgeConfig("t"), {
      c1: yamlDocs(
        gatewayAndRoute({ namespace: "shop", ...(hostname ? { hostname } : {}), rules }),
        service("web", "shop"),
        endpointSlice({ service: "web", name: "web-1", namespace: "shop", port: 9901 }),
      ),
    })
  ).table;

describe("the requests kedge dev prints", () => {
  it("names a path each rule matches: its first Exact or PathPrefix value, / for a rule without matches", async ({ expect }) => {
    const table = await tableOf(
      "app.example.com",
      `    - matches: [{ path: { type: RegularExpression, value: "/v[0-9]+/.*" } }, { path: { type: PathPrefix, value: /api } }, { path: { type: Exact, value: /other } }]
      backendRefs: [{ name: web, port: 8080 }]
    - matches: [{ path: { type: Exact, value: /healthz } }]
      backendRefs: [{ name: web, port: 8080 }]
    - backendRefs: [{ name: web, port: 8080 }]`,
    );
    expect(requestsToTry(table, BASE)).toEqual([
      `  curl -H 'Host: app.example.com' ${BASE}/healthz`,
      `  curl -H 'Host: app.example.com' ${BASE}/api`,
      `  curl -H 'Host: app.example.com' ${BASE}/`,
    ]);
  });

  it("prints no / for a host whose only rule takes a prefix, and no Host header for a listener without a hostname", async ({ expect }) => {
    const table = await tableOf(
      undefined,
      `    - matches: [{ path: { type: PathPrefix, value: /api } }]\n      backendRefs: [{ name: web, port: 8080 }]`,
    );
    expect(requestsToTry(table, BASE)).toEqual([`  curl ${BASE}/api`]);
  });

  it("quotes a path a shell would read otherwise, and skips a rule with only RegularExpression paths", async ({ expect }) => {
    const table = await tableOf(
      "app.example.com",
      `    - matches: [{ path: { type: Exact, value: "/a&b" } }]
      backendRefs: [{ name: web, port: 8080 }]
    - matches: [{ path: { type: RegularExpression, value: "/v[0-9]+" } }]
      backendRefs: [{ name: web, port: 8080 }]`,
    );
    expect(requestsToTry(table, BASE)).toEqual([`  curl -H 'Host: app.example.com' '${BASE}/a&b'`]);
  });

  it("carries what a rule matches besides its path: method, Exact headers and query; -i where it redirects; none for a regex-only match", async ({
    expect,
  }) => {
    const table = await tableOf(
      "app.example.com",
      `    - matches: [{ path: { type: Exact, value: /submit }, method: POST }]
      backendRefs: [{ name: web, port: 8080 }]
    - matches: [{ path: { type: PathPrefix, value: /q }, queryParams: [{ name: debug, value: "1" }] }]
      backendRefs: [{ name: web, port: 8080 }]
    - matches: [{ headers: [{ type: RegularExpression, name: x-v, value: "v[0-9]" }] }, { headers: [{ name: x-canary, value: "yes" }] }]
      backendRefs: [{ name: web, port: 8080 }]
    - matches: [{ path: { type: PathPrefix, value: /old } }]
      filters: [{ type: RequestRedirect, requestRedirect: { path: { type: ReplacePrefixMatch, replacePrefixMatch: /new } } }]
    - backendRefs: [{ name: web, port: 8080 }]`,
    );
    expect(requestsToTry(table, BASE)).toEqual([
      `  curl -X POST -H 'Host: app.example.com' ${BASE}/submit`,
      // In precedence order: the longer prefix first.
      `  curl -i -H 'Host: app.example.com' ${BASE}/old`,
      `  curl -H 'Host: app.example.com' '${BASE}/q?debug=1'`,
      `  curl -H 'Host: app.example.com' -H 'x-canary: yes' ${BASE}/`,
      `  curl -H 'Host: app.example.com' ${BASE}/`,
    ]);
  });
});

describe("the .dev.vars placeholders", () => {
  it("names the secrets still holding a replace-with- value or the value .dev.vars.example gives them", ({ expect }) => {
    const dir = mkdtempSync(join(tmpdir(), "kedge-dev-vars-"));
    try {
      writeFileSync(join(dir, ".dev.vars.example"), "SESSION_HMAC_KEY=replace-with-a-long-random-string\nKEDGE_STATUS_TOKEN=change-me\n");
      writeFileSync(
        join(dir, ".dev.vars"),
        "# copied\nSESSION_HMAC_KEY='replace-with-a-long-random-string'\nKEDGE_STATUS_TOKEN=change-me\nOTHER=fine\n",
      );
      const vars = readDevVars(join(dir, ".dev.vars"));
      expect(placeholderSecrets(vars, join(dir, ".dev.vars.example"))).toEqual(["SESSION_HMAC_KEY", "KEDGE_STATUS_TOKEN"]);
      expect(placeholderSecrets({ SESSION_HMAC_KEY: "k3y" }, join(dir, "missing.example"))).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
