/**
 * @module One pass over the client's request headers, made once per request: their size (for the 431)
 * and the names that must not reach an origin. Iterating a Headers object is the costliest header
 * operation in workerd (a C++ call per entry), so nothing else walks them.
 */
import { connectionListed, PROXY_HOP_BY_HOP } from "./forwarding-headers";

/** Header names in this namespace belong to the gateway; a client's never reach an origin. */
const INTERNAL_PREFIX = "x-kedge-";

/**
 * Not hop-by-hop, but not forwarded either: the runtime's front answers a client's `Expect:
 * 100-continue`, and the body goes upstream at once. Forwarded, it makes the origin send a 100 Continue,
 * which workerd's fetch() takes for the final response.
 */
const EXPECT = "expect";

/**
 * What a client says about who it is: anyone can send these, so an origin must not read them as the
 * client's address. The gateway sets both from CF-Connecting-IP, the address Cloudflare vouches for.
 */
const CLIENT_CLAIMS: ReadonlySet<string> = new Set(["x-forwarded-for", "forwarded"]);

export interface ClientHeaders {
  /** Total length of names and values. */
  bytes: number;
  /**
   * Present names to drop on the way upstream: the hop-by-hop headers the runtime would forward, those
   * Connection lists, Expect, the client's X-Forwarded-For and Forwarded, and the gateway's own.
   */
  dropped: string[];
  /** A WebSocket upgrade: Upgrade is then forwarded. */
  webSocket: boolean;
  /** The values the gateway reads: CF-Ray (the request id) and CF-Connecting-IP. */
  ray?: string;
  connectingIp?: string;
}

export function scanClientHeaders(headers: Headers): ClientHeaders {
  const scan: ClientHeaders = { bytes: 0, dropped: [], webSocket: false };
  headers.forEach((value, name) => {
    scan.bytes += name.length + value.length;
    if (name === "cf-ray") scan.ray = value;
    else if (name === "cf-connecting-ip") scan.connectingIp = value;
    else if (name === "upgrade" && value.toLowerCase() === "websocket") scan.webSocket = true;
    else if (name === "connection") scan.dropped.push(...connectionListed(value));
    else if (PROXY_HOP_BY_HOP.includes(name) || name === EXPECT || CLIENT_CLAIMS.has(name) || name.startsWith(INTERNAL_PREFIX))
      scan.dropped.push(name);
  });
  return scan;
}
