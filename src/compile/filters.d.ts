import type { CompiledFilter } from "../table/route-table";
import { type FieldProblem, type MatchDraft } from "./route-matches";
/** Compiles a filter list. `matches` are the rule's (ReplacePrefixMatch needs them). */
export declare function compileFilters(raw: unknown, at: string, matches: MatchDraft[]): CompiledFilter[] | FieldProblem;
