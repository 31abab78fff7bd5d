/**
 * @module Which regular expressions the sync accepts: RE2 syntax, as Envoy and Envoy Gateway read it, and
 * exactly what the Worker's engine compiles (src/routing/full-match.ts). RE2 matches in linear time, so no
 * pattern can make a request expensive; what it cannot express (backreferences, lookaround) is refused.
 */
import { compileFullMatch } from "../../routing/full-match";

/** Returns a problem description, or null when the pattern is accepted. */
export function regexProblem(pattern: string): string | null {
  if (pattern.length === 0 || pattern.length > 1024) return "must be 1 to 1024 characters";
  try {
    compileFullMatch(pattern);
  } catch (e) {
    return `is not RE2 syntax (${(e as Error).message}); backreferences and lookaround have no RE2 equivalent`;
  }
  return null;
}
