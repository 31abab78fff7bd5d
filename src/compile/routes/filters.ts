/**
 * @module Compiles HTTPRoute filters (spec §2) for a rule or a backendRef. The schema stage has checked each
 * filter's fields; what is left here are the CRD's CEL rules (which filters go together, what each type
 * needs, what its values may hold) and what kedge cannot honour. Either rejects the route (UnsupportedValue):
 * a filter is never skipped silently.
 */
import { hostnameProblem } from "../../gateway-api/hostname";
import type { CompiledFilter, HeaderModifier, PathModifier } from "../../table/route-table";
import type {
  BackendObjectReference,
  HTTPCORSFilter,
  HTTPHeaderFilter,
  HTTPPathModifier,
  HTTPRequestMirrorFilter,
  HTTPRouteFilter,
} from "../input/typed-objects";
import { headerNameProblem, headerValueProblem, type MatchDraft, pathValueProblem } from "./route-matches";
import { type FieldProblem, isProblem } from "../status/problems";
import { unsupported } from "../status/conditions";
import { kept } from "../kept";

type HeaderPair = { name: string; value: string };

function compileHeaderModifier(raw: HTTPHeaderFilter | undefined, at: string): HeaderModifier | FieldProblem {
  // The filter's type asks for its modifier by a CEL rule, which the schema stage does not run.
  if (raw === undefined) return unsupported(at, "header modifier must be a mapping");
  // One action per header across set, add and remove.
  const names = new Set<string>();
  const claim = (name: string, field: string): FieldProblem | null => {
    if (names.has(name.toLowerCase())) return unsupported(field, `header ${name} has more than one action`);
    names.add(name.toLowerCase());
    return null;
  };
  const pairs = (list: HeaderPair[] | undefined, field: string): HeaderPair[] | FieldProblem => {
    const out: HeaderPair[] = [];
    for (const [i, h] of (list ?? []).entries()) {
      const clash = claim(h.name, `${field}[${i}].name`);
      if (clash) return clash;
      const problem = headerValueProblem(h.value);
      if (problem) return unsupported(`${field}[${i}].value`, `header ${h.name} value ${problem}`);
      out.push({ name: h.name.toLowerCase(), value: h.value });
    }
    return kept(out);
  };
  const set = pairs(raw.set, `${at}.set`);
  if (isProblem(set)) return set;
  const add = pairs(raw.add, `${at}.add`);
  if (isProblem(add)) return add;
  const remove: string[] = [];
  for (const [i, name] of (raw.remove ?? []).entries()) {
    // Names to remove are plain strings to the schema, unlike those of set and add.
    const problem = headerNameProblem(name);
    if (problem) return unsupported(`${at}.remove[${i}]`, `header name ${JSON.stringify(name)} ${problem}`);
    const clash = claim(name, `${at}.remove[${i}]`);
    if (clash) return clash;
    remove.push(name.toLowerCase());
  }
  return { set, add, remove };
}

function compilePathModifier(
  raw: HTTPPathModifier | undefined,
  at: string,
  matches: MatchDraft[],
): PathModifier | FieldProblem | undefined {
  if (raw === undefined) return undefined;
  if (raw.type === "ReplaceFullPath") {
    // Asked for by a CEL rule (and null passes the schema).
    if (typeof raw.replaceFullPath !== "string") return unsupported(`${at}.replaceFullPath`, "replaceFullPath is required");
    const problem = pathValueProblem(raw.replaceFullPath);
    return problem
      ? unsupported(`${at}.replaceFullPath`, `replaceFullPath ${problem}`)
      : { type: "ReplaceFullPath", value: raw.replaceFullPath };
  }
  // ReplacePrefixMatch, the schema's only other type.
  const only = matches.length === 1 ? matches[0] : undefined;
  if (!only || only.path.type !== "PathPrefix") {
    return unsupported(`${at}.type`, "ReplacePrefixMatch needs exactly one match, and it must be a PathPrefix");
  }
  const value = raw.replacePrefixMatch ?? "";
  const problem = value === "" ? null : pathValueProblem(value);
  if (problem) return unsupported(`${at}.replacePrefixMatch`, `replacePrefixMatch ${problem}`);
  return { type: "ReplacePrefixMatch", value, prefix: only.path.value };
}

/** What compiling one filter list needs from its rule. */
export interface FilterContext {
  /** The rule's matches (ReplacePrefixMatch needs exactly one PathPrefix). */
  matches: MatchDraft[];
  /** Resolves a RequestMirror's backendRef to a table backend. */
  resolveMirror(ref: BackendObjectReference, at: string): { backend: string } | FieldProblem;
  /** Mirrors whose backend cannot be resolved: ResolvedRefs=False, and the mirror is left out. */
  unresolved: FieldProblem[];
  /** Where the filters sit: CORS is a rule's, never a backendRef's. */
  level: "rule" | "backendRef";
}

/** The share of requests a mirror copies, in percent; the schema checks the ranges, CEL the rest. */
function mirrorPercent(m: HTTPRequestMirrorFilter, at: string): number | FieldProblem {
  if (m.percent !== undefined && m.fraction !== undefined) return unsupported(at, "set percent or fraction, not both");
  if (m.percent !== undefined) {
    // A null percent passes the schema, and is no percentage.
    return m.percent === null ? unsupported(`${at}.percent`, "percent must be an integer 0-100") : m.percent;
  }
  if (m.fraction === undefined) return 100;
  const { numerator } = m.fraction;
  const denominator = m.fraction.denominator ?? 100;
  if (numerator > denominator) {
    return unsupported(`${at}.fraction`, "fraction needs 0 <= numerator <= denominator, denominator >= 1");
  }
  return (numerator / denominator) * 100;
}

function compileMirror(raw: HTTPRequestMirrorFilter | undefined, at: string, ctx: FilterContext): CompiledFilter | FieldProblem | null {
  // The filter's type asks for requestMirror by a CEL rule; once it is there, the schema requires its backendRef.
  if (raw === undefined) return unsupported(`${at}.backendRef`, "requestMirror needs a backendRef with a name");
  const percent = mirrorPercent(raw, at);
  if (isProblem(percent)) return percent;
  const resolved = ctx.resolveMirror(raw.backendRef, `${at}.backendRef`);
  if ("reason" in resolved) {
    ctx.unresolved.push({ ...resolved, effect: "the mirror is left out" });
    return null;
  }
  return { type: "RequestMirror", backend: resolved.backend, percent };
}

/** Origins as the edge compares them: narrower than the schema's pattern (lower-case host, a host after `*.`). */
const ORIGIN = /^https?:\/\/(\*\.)?[a-z0-9]([-a-z0-9.]*[a-z0-9])?(:[0-9]{1,5})?$/;

type CorsList = "allowOrigins" | "allowMethods" | "allowHeaders" | "exposeHeaders";

/** One of the CORS lists, where "*" stands alone (the schema lets it share the list). */
function corsList(c: HTTPCORSFilter, key: CorsList, at: string): string[] | FieldProblem {
  const value = c[key] ?? [];
  if (value.includes("*") && value.length > 1) return unsupported(`${at}.${key}`, `"*" must be ${key}'s only entry`);
  return value;
}

function compileCors(raw: HTTPCORSFilter | undefined, at: string): CompiledFilter | FieldProblem {
  const c = raw ?? {};
  if (!(c.allowOrigins ?? []).every((v) => v === "*" || ORIGIN.test(v))) {
    return unsupported(
      `${at}.allowOrigins`,
      `allowOrigins must be a list of origins like "https://app.example" or "https://*.example.com", or ["*"]`,
    );
  }
  const allowOrigins = corsList(c, "allowOrigins", at);
  if (isProblem(allowOrigins)) return allowOrigins;
  const allowMethods = corsList(c, "allowMethods", at);
  if (isProblem(allowMethods)) return allowMethods;
  const allowHeaders = corsList(c, "allowHeaders", at);
  if (isProblem(allowHeaders)) return allowHeaders;
  const exposeHeaders = corsList(c, "exposeHeaders", at);
  if (isProblem(exposeHeaders)) return exposeHeaders;
  const allowCredentials = c.allowCredentials ?? false;
  const maxAge = c.maxAge ?? 5;
  return { type: "CORS", allowOrigins, allowCredentials, allowMethods, allowHeaders, exposeHeaders, maxAge };
}

/** Whether a hostname to redirect or rewrite to is unusable: the schema's pattern lets an IP address or a label over 63 characters by. */
const isUnusableHostname = (hostname: string | undefined): boolean => hostname !== undefined && hostnameProblem(hostname, false) !== null;

/** Compiles a filter list of a rule or a backendRef. */
export function compileFilters(raw: HTTPRouteFilter[] | undefined, at: string, ctx: FilterContext): CompiledFilter[] | FieldProblem {
  if (raw === undefined || raw.length === 0) return kept([]);
  const { matches } = ctx;
  const out: CompiledFilter[] = [];
  const seen = new Set<string>();
  for (const [i, f] of (raw ?? []).entries()) {
    const here = `${at}[${i}]`;
    // RequestMirror may repeat; every other filter type appears at most once (CEL).
    if (seen.has(f.type) && f.type !== "RequestMirror") return unsupported(here, `${f.type} may appear only once`);
    seen.add(f.type);
    switch (f.type) {
      case "RequestHeaderModifier":
      case "ResponseHeaderModifier": {
        const key = f.type === "RequestHeaderModifier" ? "requestHeaderModifier" : "responseHeaderModifier";
        const modifier = compileHeaderModifier(f[key], `${here}.${key}`);
        if (isProblem(modifier)) return modifier;
        out.push({ type: f.type, modifier });
        break;
      }
      case "RequestRedirect": {
        const r = f.requestRedirect ?? {};
        if (isUnusableHostname(r.hostname)) return unsupported(`${here}.requestRedirect.hostname`, "hostname must be a precise hostname");
        const path = compilePathModifier(r.path, `${here}.requestRedirect.path`, matches);
        if (isProblem(path)) return path;
        out.push({ type: "RequestRedirect", scheme: r.scheme, hostname: r.hostname, port: r.port, path, statusCode: r.statusCode ?? 302 });
        break;
      }
      case "URLRewrite": {
        const r = f.urlRewrite ?? {};
        if (isUnusableHostname(r.hostname)) return unsupported(`${here}.urlRewrite.hostname`, "hostname must be a precise hostname");
        const path = compilePathModifier(r.path, `${here}.urlRewrite.path`, matches);
        if (isProblem(path)) return path;
        out.push({ type: "URLRewrite", hostname: r.hostname, path });
        break;
      }
      case "CORS": {
        if (ctx.level === "backendRef") {
          return unsupported(`${here}.type`, "CORS applies to a whole rule; set it in the rule's filters");
        }
        const cors = compileCors(f.cors, `${here}.cors`);
        if (isProblem(cors)) return cors;
        out.push(cors);
        break;
      }
      case "RequestMirror": {
        const mirror = compileMirror(f.requestMirror, `${here}.requestMirror`, ctx);
        if (isProblem(mirror)) return mirror;
        if (mirror) out.push(mirror);
        break;
      }
      default:
        return unsupported(`${here}.type`, `filter ${f.type} is not supported by kedge yet`);
    }
  }
  if (seen.has("RequestRedirect") && seen.has("URLRewrite")) {
    return unsupported(at, "RequestRedirect and URLRewrite cannot be combined");
  }
  return kept(out);
}
