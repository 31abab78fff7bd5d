/** @module Host pattern matching shared by the compiler and the Worker (Gateway API hostname semantics). */

export const isWildcard = (pattern: string): boolean => pattern.startsWith("*.");

/** `*.example.com` matches `a.example.com` and `a.b.example.com`, never `example.com`; exact names match themselves. */
export function hostnameMatches(pattern: string, host: string): boolean {
  if (!isWildcard(pattern)) return pattern === host;
  const suffix = pattern.slice(1); // ".example.com"
  return host.length > suffix.length && host.endsWith(suffix);
}
