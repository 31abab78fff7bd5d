/** @module Gateway API hostname syntax, wildcard matching and listener × route intersection (spec §1.4). */
import { hostnameMatches, isWildcard } from "../routing/hostname-match";

export { hostnameMatches, isWildcard };

/** RFC 1123 lower-case labels separated by dots, tested whole (not split: a route table checks one per hostname). */
const LABELS = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?(\.[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?)*$/;
const IPV4 = /^\d{1,3}(\.\d{1,3}){3}$/;
/** Only ASCII letters, digits, '-', '_', '.' and '*': nothing a URL parser would decode or map to a digit or dot. */
const PLAIN_ASCII = /^[A-Za-z0-9._*-]*$/;
/** A last label (before at most one trailing dot) that is a number, decimal or 0x hex: what makes a URL host IPv4. */
const ENDS_IN_NUMBER = /(^|\.)(\d+|0[xX][0-9A-Fa-f]*)\.?$/;

/** `localhost` and its subdomains: the machine itself, never a cluster's endpoint. */
export const isLocalhost = (host: string): boolean => host === "localhost" || host.endsWith(".localhost");

/**
 * True for an IPv4 or IPv6 literal (with or without brackets), and for what a URL parser reads as an IPv4
 * address although it is not written as one: `127.1`, `2130706433`, `0x7f000001`, `0177.0.0.1` all mean
 * 127.0.0.1 to `fetch`.
 */
export function isIpLiteral(host: string): boolean {
  if (IPV4.test(host) || host.includes(":") || (host.startsWith("[") && host.endsWith("]"))) return true;
  // The URL parser reads a host as IPv4 only when it ends in a number (WHATWG URL, "ends in a number checker"):
  // a plain host that does not is a name, told without parsing a URL (a route table checks one per hostname).
  if (PLAIN_ASCII.test(host) && !ENDS_IN_NUMBER.test(host)) return false;
  try {
    return IPV4.test(new URL(`http://${host}/`).hostname);
  } catch {
    return false;
  }
}

/**
 * Validates an RFC 1123 lower-case hostname; with `allowWildcard`, a single leading `*.` label.
 * Returns a problem description, or null when valid.
 */
export function hostnameProblem(hostname: string, allowWildcard: boolean): string | null {
  if (hostname.length === 0 || hostname.length > 253) return "must be 1 to 253 characters";
  if (isIpLiteral(hostname)) return "must not be an IP address";
  let rest = hostname;
  if (hostname.startsWith("*.")) {
    if (!allowWildcard) return "must not be a wildcard";
    rest = hostname.slice(2);
  }
  if (!LABELS.test(rest)) {
    return "must be lower-case RFC 1123 labels (a-z, 0-9, '-') separated by '.', optionally prefixed by '*.'";
  }
  return null;
}

/**
 * The host patterns a route serves through one listener (spec §1.4 intersection), or `null` for
 * "every host the listener takes". An empty array means no intersection: the route does not attach.
 */
export function intersectHostnames(listenerHostname: string | undefined, routeHostnames: string[]): string[] | null {
  if (routeHostnames.length === 0) return listenerHostname === undefined ? null : [listenerHostname];
  if (listenerHostname === undefined) return [...routeHostnames];
  const result = new Set<string>();
  for (const route of routeHostnames) {
    if (hostnameMatches(listenerHostname, route) || route === listenerHostname) {
      result.add(route); // route is equal to, or more specific than, the listener
    } else if (hostnameMatches(route, listenerHostname)) {
      result.add(listenerHostname); // route wildcard × more specific listener: the listener's host only
    }
  }
  return [...result].sort();
}
