/**
 * @module Where an endpoint's host points: the machine itself (loopback), a private or link-local network,
 * the public internet, or a name. Read the way `fetch` reads a URL's host, so `127.1`, `2130706433`,
 * `0x7f000001` and `[::ffff:127.0.0.1]` are all loopback. The sync uses it to refuse addresses a deployed
 * Worker cannot reach without a network binding; the Worker to refuse them in a table it did not expect
 * them in.
 */

export type AddressScope = "loopback" | "private" | "link-local" | "public" | "name";

const IPV4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

/** The URL parser's reading of a host (it normalises IPv4 spellings and IPv6 text), or null when it is no host. */
function parsedHost(host: string): string | null {
  const text = host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
  try {
    return new URL(`http://${text}/`).hostname;
  } catch {
    return null;
  }
}

function ipv4Scope(a: number, b: number): AddressScope {
  if (a === 127 || a === 0) return "loopback";
  if (a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 100 && b >= 64 && b <= 127)) return "private";
  if (a === 169 && b === 254) return "link-local";
  return "public";
}

/** The 16-bit groups of an IPv6 address as the URL parser prints it (compressed, lower-case). */
function ipv6Groups(text: string): number[] | null {
  const [head = "", tail] = text.split("::");
  const part = (s: string) => (s === "" ? [] : s.split(":").map((g) => Number.parseInt(g, 16)));
  const front = part(head);
  const back = tail === undefined ? [] : part(tail);
  const groups = tail === undefined ? front : [...front, ...Array<number>(8 - front.length - back.length).fill(0), ...back];
  return groups.length === 8 && groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : null;
}

function ipv6Scope(groups: number[]): AddressScope {
  const [g0 = 0, , , , , g5 = 0, g6 = 0, g7 = 0] = groups;
  const zeroUntil = (n: number) => groups.slice(0, n).every((g) => g === 0);
  if (zeroUntil(7) && (g7 === 1 || g7 === 0)) return "loopback";
  // IPv4-mapped (::ffff:a.b.c.d): where the IPv4 address points.
  if (zeroUntil(5) && g5 === 0xffff) return ipv4Scope(g6 >> 8, g6 & 0xff);
  if ((g0 & 0xfe00) === 0xfc00) return "private";
  if ((g0 & 0xffc0) === 0xfe80) return "link-local";
  return "public";
}

/** Where `host` (a URL host: name, IPv4, or IPv6 with or without brackets) points. */
export function addressScope(host: string): AddressScope {
  const lower = host.toLowerCase();
  if (lower === "localhost" || lower.endsWith(".localhost") || lower === "localhost.") return "loopback";
  const parsed = parsedHost(lower);
  if (parsed === null) return "name";
  if (parsed.startsWith("[")) {
    const groups = ipv6Groups(parsed.slice(1, -1));
    return groups ? ipv6Scope(groups) : "name";
  }
  const v4 = IPV4.exec(parsed);
  if (!v4) return "name";
  return ipv4Scope(Number(v4[1]), Number(v4[2]));
}

/** Whether `host` points inside the machine or a private network: reachable from Cloudflare only through a tunnel. */
export const isInternalAddress = (host: string): boolean => {
  const scope = addressScope(host);
  return scope === "loopback" || scope === "private" || scope === "link-local";
};
