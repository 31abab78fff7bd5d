/**
 * @module The regular-expression engine the Worker matches with (RE2 semantics, re2js: linear time) beside
 * V8's backtracking RegExp, on the bench tables' patterns and on hostile inputs. V8 runs the hostile cases
 * at sizes it can finish; RE2 also at the size that took V8 seconds.
 */
import { fullMatch } from "../../../src/routing/full-match";
import { timePerCall } from "./stats";

export interface RegexFigure {
  pattern: string;
  input: string;
  re2Us: number;
  /** NaN where V8 is not run: the input would take it seconds or more. */
  v8Us: number;
}

const CASES: { pattern: string; input: string; label: string; v8: boolean }[] = [
  { pattern: "/api/v42/[0-9]+", input: "/api/v42/1234", label: "/api/v42/1234 (bench table)", v8: true },
  { pattern: "/static/.*\\.(css|js)", input: "/static/app/main.css", label: "/static/app/main.css", v8: true },
  { pattern: "/api/.*/.*/.*/items", input: "/api/v1/shop/cart/items", label: "/api/v1/shop/cart/items", v8: true },
  { pattern: "/api/.*/.*/.*/items", input: `/api/${"/".repeat(200)}`, label: "/api/ + 200 slashes (hostile)", v8: true },
  { pattern: "/api/.*/.*/.*/items", input: `/api/${"/".repeat(3000)}`, label: "/api/ + 3,000 slashes (hostile)", v8: false },
  { pattern: "(a|aa)+b", input: `${"a".repeat(30)}c`, label: "30 × a, then c (hostile)", v8: true },
  { pattern: "(a|aa)+b", input: `${"a".repeat(5000)}c`, label: "5,000 × a, then c (hostile)", v8: false },
];

export function benchRegex(): RegexFigure[] {
  return CASES.map(({ pattern, input, label, v8 }) => {
    const re2 = fullMatch(pattern);
    const backtracking = new RegExp(`^(?:${pattern})$`, "u");
    return {
      pattern,
      input: label,
      re2Us: timePerCall(() => re2.test(input), 5, 50) * 1000,
      v8Us: v8 ? timePerCall(() => backtracking.test(input), 5, 50) * 1000 : Number.NaN,
    };
  });
}
