/** `kedge explain --compile` on the example config: the rule, the backend, and where a session token pins the request. */
import { join } from "node:path";
import { describe, it } from "vitest";
import { explainCommand } from "../../scripts/sync/explain-command";
import { sessionKey, signToken } from "../../src/session/session-token";

const CONFIG = join(import.meta.dirname, "..", "..", "config");

async function explain(...args: string[]): Promise<string> {
  const out: string[] = [];
  const code = await explainCommand(["--compile", "--config", CONFIG, ...args], { out: (t) => out.push(t), err: (t) => out.push(t) });
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

  it("a session cookie shows the endpoint its token pins", async ({ expect }) => {
    const token = await signToken(
      await sessionKey("any-key-the-cli-cannot-check"),
      "bookinfo/productpage/rule/0",
      "AAAAAAAAAAAAAAAAAAAAAA",
      {
        backend: "CompositeBackend/bookinfo/productpage:9080",
        endpoint: "eu-west/127.0.0.1:9201",
        createdAt: Date.UTC(2026, 10, 24, 12),
      },
    );
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
