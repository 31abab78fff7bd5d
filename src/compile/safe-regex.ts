/**
 * @module Accepts only regular expressions that cannot backtrack catastrophically at the edge:
 * an RE2-like subset (no backreferences, no lookaround) with no quantified group that itself
 * contains a quantifier or an alternation, the shapes behind ReDoS ((a+)+, (a|a)*).
 */

/** Returns a problem description, or null when the pattern is accepted. */
export function regexProblem(pattern: string): string | null {
  if (pattern.length === 0 || pattern.length > 1024) return "must be 1 to 1024 characters";
  try {
    new RegExp(pattern, "u");
  } catch (e) {
    return `is not a valid regular expression: ${(e as Error).message}`;
  }
  if (/\\[1-9]|\\k</.test(pattern)) return "must not use backreferences (RE2 syntax)";
  if (/\(\?<?[=!]/.test(pattern)) return "must not use lookaround (RE2 syntax)";
  // Walk groups: a group containing a quantifier or '|' must not itself be quantified.
  const stack: { risky: boolean }[] = [];
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i];
    if (ch === "\\") {
      i++;
      continue;
    }
    if (inClass) {
      if (ch === "]") inClass = false;
      continue;
    }
    const next = pattern[i + 1];
    const quantifiedNext = next === "*" || next === "+" || next === "?" || next === "{";
    if (ch === "[") inClass = true;
    else if (ch === "(") stack.push({ risky: false });
    else if (ch === "|" && stack.length > 0) stack[stack.length - 1]!.risky = true;
    else if (ch === "*" || ch === "+" || (ch === "{" && /^\{\d/.test(pattern.slice(i)))) {
      if (stack.length > 0) stack[stack.length - 1]!.risky = true;
    } else if (ch === ")") {
      const group = stack.pop();
      if (group?.risky && (next === "*" || next === "+" || next === "{")) {
        return "must not repeat a group that itself repeats or alternates, e.g. (a+)+ or (a|b)* (catastrophic backtracking)";
      }
      // A group that repeats makes its enclosing group risky too.
      if (stack.length > 0 && (group?.risky || quantifiedNext)) stack[stack.length - 1]!.risky = true;
    }
  }
  return null;
}
