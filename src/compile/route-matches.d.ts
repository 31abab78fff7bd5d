import type { CompiledPathMatch, CompiledValueMatch } from "../table/route-table";
/** A match before it gets its id and position in the table. */
export interface MatchDraft {
  path: CompiledPathMatch;
  headers: CompiledValueMatch[];
  queryParams: CompiledValueMatch[];
  method?: string;
}
/** A rejected field: where and why, with the Gateway API reason. */
export interface FieldProblem {
  field: string;
  reason: string;
  message: string;
}
export declare const METHODS: string[];
/** Problems with an Exact/PathPrefix value (spec §1.1 validation), or null. */
export declare function pathValueProblem(value: string): string | null;
/** Header values sent or matched must be printable, without CR/LF (header injection). */
export declare function headerValueProblem(value: string, max?: number): string | null;
export declare const headerNameProblem: (name: string) => string | null;
declare const isProblem: (v: unknown) => v is FieldProblem;
/** Compiles `rules[i].matches`; no matches means one prefix match on "/". */
export declare function compileMatches(raw: unknown, at: string): MatchDraft[] | FieldProblem;
export { isProblem };
