/**
 * @module Accepts only regular expressions that cannot backtrack catastrophically at the edge:
 * an RE2-like subset (no backreferences, no lookaround) with no quantified group that itself
 * contains a quantifier or an alternation, the shapes behind ReDoS ((a+)+, (a|a)*).
 */
/** Returns a problem description, or null when the pattern is accepted. */
export declare function regexProblem(pattern: string): string | null;
