/** @module Path modifiers shared by URLRewrite and RequestRedirect (spec §2 ReplacePrefixMatch table). */
import type { PathModifier } from "../table/route-table";
/**
 * Replaces the matched prefix segment-wise: `/foo/bar` with prefix `/foo` and replacement `/xyz`
 * gives `/xyz/bar`; an empty replacement strips the prefix, leaving at least `/`.
 */
export declare function replacePrefix(path: string, prefix: string, replacement: string): string;
/** The path after a modifier, or the path unchanged when there is none. */
export declare function modifyPath(path: string, modifier: PathModifier | undefined): string;
