/** @module Gateway API hostname syntax, wildcard matching and listener × route intersection (spec §1.4). */
/** True for an IPv4 or IPv6 literal (with or without brackets). */
export declare function isIpLiteral(host: string): boolean;
/**
 * Validates an RFC 1123 lower-case hostname; with `allowWildcard`, a single leading `*.` label.
 * Returns a problem description, or null when valid.
 */
export declare function hostnameProblem(hostname: string, allowWildcard: boolean): string | null;
export declare const isWildcard: (pattern: string) => boolean;
/** `*.example.com` matches `a.example.com` and `a.b.example.com`, never `example.com`; exact names match themselves. */
export declare function hostnameMatches(pattern: string, host: string): boolean;
/**
 * The host patterns a route serves through one listener (spec §1.4 intersection), or `null` for
 * "every host the listener takes". An empty array means no intersection: the route does not attach.
 */
export declare function intersectHostnames(listenerHostname: string | undefined, routeHostnames: string[]): string[] | null;
