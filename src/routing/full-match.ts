/**
 * @module Regular expressions for path, header and query matches, with RE2 semantics and in linear time:
 * Envoy and Envoy Gateway match with RE2, so users' patterns are written for it, and a backtracking
 * engine (V8's) can spend seconds of CPU on one hostile request (`/api/.*\/.*\/.*\/items` against a path
 * of thousands of slashes). re2js runs an automaton: time proportional to the input, whatever it is.
 * The sync refuses what RE2 cannot express (src/compile/re2-syntax.ts), with the same engine.
 */
import { RE2JS } from "re2js";

export interface FullMatch {
  /** Whether the whole of `input` matches. */
  test(input: string): boolean;
}

/** Holds for no string. */
const NEVER: FullMatch = { test: () => false };

/** Compiles `pattern` for full matches; throws RE2's error for a pattern it cannot express. */
export function compileFullMatch(pattern: string): FullMatch {
  const re = RE2JS.compile(pattern);
  return { test: (input) => re.matches(input) };
}

/**
 * Full-match, case-sensitive. The sync accepts no pattern RE2 cannot compile, but a table from elsewhere
 * might hold one: its match then holds for no request, instead of failing its host's requests.
 */
export function fullMatch(pattern: string): FullMatch {
  try {
    return compileFullMatch(pattern);
  } catch (error) {
    console.error(`kedge: regular expression ${JSON.stringify(pattern)} does not compile; its match holds for no request`, error);
    return NEVER;
  }
}
