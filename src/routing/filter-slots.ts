/**
 * @module A rule's filters sorted into the slots a request reads them from: the redirect and CORS it may
 * answer with, the request edits (header modifiers and URL rewrites, in the order written), the response
 * header edits and the mirrors. Built once per rule (and per rule × backendRef, the rule's filters first)
 * the first time a request uses it, so no request searches a filter list.
 */
import type { CompiledFilter, CompiledRule, HeaderModifier } from "../table/route-table";
import type { CorsFilter } from "./cors";

export type RedirectFilter = Extract<CompiledFilter, { type: "RequestRedirect" }>;
export type RequestEdit = Extract<CompiledFilter, { type: "RequestHeaderModifier" | "URLRewrite" }>;
export type MirrorFilter = Extract<CompiledFilter, { type: "RequestMirror" }>;

/** A mirror and where it was written: its copy carries the request edits listed before it, not those after. */
export interface PlacedMirror {
  filter: MirrorFilter;
  /** How many of the slots' request edits come before it. */
  editsBefore: number;
}

export interface FilterSlots {
  redirect?: RedirectFilter;
  cors?: CorsFilter;
  /** RequestHeaderModifier and URLRewrite, in the order written. */
  request: RequestEdit[];
  response: HeaderModifier[];
  mirrors: PlacedMirror[];
}

function sortFilters(filters: CompiledFilter[]): FilterSlots {
  const slots: FilterSlots = { request: [], response: [], mirrors: [] };
  for (const f of filters) {
    switch (f.type) {
      case "RequestRedirect":
        slots.redirect ??= f;
        break;
      case "CORS":
        slots.cors ??= f;
        break;
      case "RequestHeaderModifier":
      case "URLRewrite":
        slots.request.push(f);
        break;
      case "ResponseHeaderModifier":
        slots.response.push(f.modifier);
        break;
      case "RequestMirror":
        slots.mirrors.push({ filter: f, editsBefore: slots.request.length });
        break;
    }
  }
  return slots;
}

/** A rule's own slots, and those of each of its backendRefs joined to the rule's. */
export interface RuleSlots {
  rule: FilterSlots;
  refs: FilterSlots[];
}

export function slotRule(rule: CompiledRule): RuleSlots {
  const own = sortFilters(rule.filters);
  return {
    rule: own,
    refs: rule.backendRefs.map((ref) => (ref.filters.length === 0 ? own : sortFilters([...rule.filters, ...ref.filters]))),
  };
}
