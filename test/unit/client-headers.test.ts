import { describe, expect, it } from "vitest";
import { scanClientHeaders } from "../../src/worker/client-headers";

describe("one pass over the client's headers", () => {
  it("drops the hop-by-hop headers the runtime forwards, the names Connection lists, Expect, and x-kedge-*, and nothing else", () => {
    // The runtime itself never forwards Connection, Keep-Alive, TE, Trailer, Upgrade or Transfer-Encoding
    // (test/e2e/wire.test.ts); deleting them again would cost a call each.
    const scan = scanClientHeaders(
      new Headers({
        connection: "keep-alive, X-Secret, , not a name",
        "keep-alive": "timeout=5",
        "x-secret": "1",
        "proxy-authorization": "Basic eA==",
        "proxy-connection": "keep-alive",
        "x-kedge-trusted": "yes",
        te: "trailers",
        upgrade: "h2c",
        expect: "100-continue",
        accept: "*/*",
        "x-custom": "kept",
      }),
    );
    expect(new Set(scan.dropped)).toEqual(new Set(["x-secret", "proxy-authorization", "proxy-connection", "x-kedge-trusted", "expect"]));
    expect(scan.webSocket).toBe(false);
  });

  it("keeps Upgrade for a WebSocket handshake, even though Connection names it", () => {
    const scan = scanClientHeaders(new Headers({ connection: "Upgrade", upgrade: "WebSocket", "sec-websocket-key": "k" }));
    expect(scan.webSocket).toBe(true);
    expect(scan.dropped).toEqual([]);
  });

  it("counts names and values, picks out CF-Ray and CF-Connecting-IP, and drops the client's own X-Forwarded-For and Forwarded", () => {
    const scan = scanClientHeaders(
      new Headers({ "cf-ray": "8a1", "cf-connecting-ip": "203.0.113.7", "x-forwarded-for": "10.0.0.9", forwarded: "for=1.2.3.4" }),
    );
    expect(scan.bytes).toBe("cf-ray8a1cf-connecting-ip203.0.113.7forwardedfor=1.2.3.4x-forwarded-for10.0.0.9".length);
    expect(scan).toMatchObject({ ray: "8a1", connectingIp: "203.0.113.7" });
    expect(new Set(scan.dropped)).toEqual(new Set(["x-forwarded-for", "forwarded"]));
  });
});
