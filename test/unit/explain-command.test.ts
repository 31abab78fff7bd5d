/** `kedge explain --compile` on the example config: the rule, the backend, and where a session token pins the request. */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, it } from "vitest";
import { runCli } from "../../scripts/cli/program";
import { sealToken, sessionKeys, signToken } from "../../src/session/session-token";

const CONFIG = join(import.meta.dirname, "..", "..", "config");
/** Local state without a session key: explain then has none unless SESSION_HMAC_KEY is set. */
const NO_STATE = mkdtempSync(join(tmpdir(), "kedge-explain-"));
const PIN = {
  backend: "CompositeBackend/bookinfo/productpage:9080",
  endpoint: "eu-west/127.0.0.1:9201",
  createdAt: Date.UTC(2026, 10, 24, 12),
};
const SCOPE = "bookinfo/productpage/rule/0";

async function explain(...args: string[]): Promise<string> {
  const out: string[] = [];
  const argv = ["explain", "--compile", "--config", CONFIG, "--persist-to", NO_STATE, ...args];
  const code = await runCli(argv, { out: (t) => out.push(t), err: (t) => out.push(t) });
  if (code !== 0) throw new Error(`exit ${code}: ${out.join("\n")}`);
  return out.join("\n");
}

describe("kedge explain", () => {
  it("names the rule chosen, the candidates it beat and the backend's endpoints", async ({ expect }) => {
    const text = await explain("--host", "bookinfo.example.com", "--path", "/reviews/1");
    expect(text).toContain("rule us-east/bookinfo/reviews/rule/1@80 (HTTPRoute bookinfo/reviews, listener port 80)");
    expect(text).toContain("· us-east/bookinfo/details/rule/0@80/match/0: path /reviews/1 does not match Exact /details");
    expect(text).toContain("· us-east/bookinfo/reviews/rule/0@80/match/0: header x-reviews-version is missing");
    expect(text).toContain(
      "· us-east/bookinfo/productpage/rule/0@80/match/0: holds, but ranks lower: path: a longer PathPrefix (8 characters) ranks above a shorter one (1)",
    );
    expect(text).toContain("backend Service/us-east/bookinfo/reviews-v1:9080: weight 80, 80% of new requests");
  });

  it("a host served only over HTTP, asked for over HTTPS, is said to be served on HTTP port 80", async ({ expect }) => {
    const text = await explain("--host", "store.example.com", "--https");
    expect(text).toContain("store.example.com is served only on HTTP port 80; no HTTPS listener takes it");
    expect(text).not.toContain("no listener takes host");
    const json = JSON.parse(await explain("--host", "store.example.com", "--https", "-o", "json")) as Record<string, unknown>;
    expect(json).toMatchObject({ rule: null, hostServedOn: [{ protocol: "HTTP", ports: [80] }] });
    expect(json.hostsServed).toBeUndefined();
  });

  it("a host no listener takes at all lists the hosts that are served", async ({ expect }) => {
    const text = await explain("--host", "nowhere.example.org", "--https");
    expect(text).toMatch(/no listener takes host nowhere\.example\.org; the hosts served: .*store\.example\.com/);
  });

  it("the same pod IP in two private clusters is two endpoints, each through its own network binding", async ({ expect }) => {
    const text = await explain("--host", "store.example.com", "--path", "/");
    expect(text).toContain("✓ us-west/10.244.1.10:8080 (through VPC_US_WEST)  ready, healthy");
    expect(text).toContain("✓ eu-central/10.244.1.10:8080 (through VPC_EU_CENTRAL)  ready, healthy");
  });

  afterEach(() => {
    delete process.env.SESSION_HMAC_KEY;
  });

  it("a sealed session token is read only with the session secret, and a wrong secret is said to be one", async ({ expect }) => {
    const secret = "the-deployed-session-secret-0123";
    const token = await sealToken(await sessionKeys(secret), SCOPE, "AAAAAAAAAAAAAAAAAAAAAA", PIN);
    const ask = () => explain("--host", "bookinfo.example.com", "--path", "/productpage", "--cookie", `bookinfo-session=${token}`);
    const sealed = await ask();
    expect(sealed).toContain("session token: the token's pin is sealed: give explain the session secret (SESSION_HMAC_KEY) to read it");
    expect(sealed).not.toContain("eu-west/127.0.0.1:9201 of");
    process.env.SESSION_HMAC_KEY = secret;
    expect(await ask()).toContain(
      "the session token pins eu-west/127.0.0.1:9201 of CompositeBackend/bookinfo/productpage:9080 (since 2026-11-24T12:00:00.000Z): it holds",
    );
    process.env.SESSION_HMAC_KEY = "another-secret-altogether-456789";
    expect(await ask()).toContain("the session secret given does not open the token");
  });

  it("a session cookie of the earlier signed form shows the endpoint its token pins, without the key", async ({ expect }) => {
    const token = await signToken(await sessionKeys("any-key-the-cli-cannot-check"), SCOPE, "AAAAAAAAAAAAAAAAAAAAAA", PIN);
    const text = await explain(
      "--host",
      "bookinfo.example.com",
      "--path",
      "/productpage",
      "--cookie",
      `other=1; bookinfo-session=${token}`,
    );
    expect(text).toContain(
      "the session token pins eu-west/127.0.0.1:9201 of CompositeBackend/bookinfo/productpage:9080 (since 2026-11-24T12:00:00.000Z;",
    );
  });
});
