/** @module Path modifiers shared by URLRewrite and RequestRedirect (spec §2 ReplacePrefixMatch table). */
import type { PathModifier } from "../table/route-table";

/**
 * Replaces the matched prefix segment-wise: `/foo/bar` with prefix `/foo` and replacement `/xyz`
 * gives `/xyz/bar`; an empty replacement strips the prefix, leaving at least `/`.
 */
export function replacePrefix(path: string, prefix: string, replacement: string): string {
  const rest = prefix === "/" ? path : path.slice(prefix.length); // "" or "/..." (segment boundary held at match time)
  const base = replacement.endsWith("/") ? replacement.slice(0, -1) : replacement;
  if (rest === "" || rest === "/") {
    if (base === "") return "/";
    return rest === "/" && prefix !== "/" ? `${base}/` : base;
  }
  const joined = `${base}${rest.startsWith("/") ? rest : `/${rest}`}`;
  return joined.startsWith("/") ? joined : `/${joined}`;
}

/** The path after a modifier, or the path unchanged when there is none. */
export function modifyPath(path: string, modifier: PathModifier | undefined): string {
  if (!modifier) return path;
  return modifier.type === "ReplaceFullPath" ? modifier.value : replacePrefix(path, modifier.prefix, modifier.value);
}
