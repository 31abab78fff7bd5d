/** @module Host pattern matching shared by the compiler and the Worker (Gateway API hostname semantics). */

export const isWildcard = (pattern: string): boolean => pattern.startsWith("*.");

/** `*.example.com` matches `a.example.com` and `a.b.example.com`, never `example.com`; exact names match themselves. */
export function hostnameMatches(pattern: string, host: string): boolean {
  if (!isWildcard(pattern)) return pattern === host;
  const suffix = pattern.slice(1); // ".example.com"
  return host.length > suffix.length && host.endsWith(suffix);
}

/** What lookupHost reads: a Map, or anything that answers `get` the same way. */
export interface HostKeyed<T> {
  get(key: string): T | undefined;
}

/**
 * The entry for a host in a host-keyed index: its exact name, else the longest wildcard suffix (stored
 * without "*.") that covers it; undefined when neither. Matcher and shard directory walk it the same way.
 */
export function lookupHost<T>(exact: HostKeyed<T>, wildcard: HostKeyed<T>, host: string): T | undefined {
  const found = exact.get(host);
  if (found !== undefined) return found;
  for (let dot = host.indexOf("."); dot !== -1; dot = host.indexOf(".", dot + 1)) {
    const covering = wildcard.get(host.slice(dot + 1));
    if (covering !== undefined) return covering;
  }
  return undefined;
}

/** Every entry for a host, most specific first: its exact name, then each wildcard suffix that covers it. */
export function* hostEntries<T>(exact: HostKeyed<T>, wildcard: HostKeyed<T>, host: string): Generator<T> {
  const found = exact.get(host);
  if (found !== undefined) yield found;
  for (let dot = host.indexOf("."); dot !== -1; dot = host.indexOf(".", dot + 1)) {
    const covering = wildcard.get(host.slice(dot + 1));
    if (covering !== undefined) yield covering;
  }
}
