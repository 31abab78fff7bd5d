/**
 * @module Compiles HTTPRoute filters (spec §2) for a rule or a backendRef. Filters kedge cannot honour
 * reject the route (UnsupportedValue): a filter is never skipped silently.
 */
import { hostnameProblem } from "../../gateway-api/hostname";
import { isJsonObject } from "../../gateway-api/manifest";
import type { CompiledFilter, HeaderModifier, PathModifier } from "../../table/route-table";
import { headerNameProblem, headerValueProblem, type MatchDraft, pathValueProblem } from "./route-matches";
import { type FieldProblem, isProblem } from "../status/problems";
import { unsupported } from "../status/conditions";

const REDIRECT_CODES = [301, 302, 303, 307, 308];

function compileHeaderModifier(raw: unknown, at: string): HeaderModifier | FieldProblem {
  if (!isJsonObject(raw)) return unsupported(at, "header modifier must be a mapping");
  const names = new Set<string>();
  const claim = (name: string, field: string): FieldProblem | null => {
    const problem = headerNameProblem(name);
    if (problem) return unsupported(field, `header name ${JSON.stringify(name)} ${problem}`);
    if (names.has(name.toLowerCase())) return unsupported(field, `header ${name} has more than one action`);
    names.add(name.toLowerCase());
    return null;
  };
  const pairs = (list: unknown, field: string): { name: string; value: string }[] | FieldProblem => {
    if (list === undefined) return [];
    if (!Array.isArray(list) || list.length > 16) return unsupported(field, `${field} must be a list of at most 16`);
    const out: { name: string; value: string }[] = [];
    for (const [i, h] of list.entries()) {
      if (!isJsonObject(h) || typeof h.name !== "string" || typeof h.value !== "string") {
        return unsupported(`${field}[${i}]`, "needs a name and a string value");
      }
      const clash = claim(h.name, `${field}[${i}].name`);
      if (clash) return clash;
      const problem = headerValueProblem(h.value);
      if (problem) return unsupported(`${field}[${i}].value`, `header ${h.name} value ${problem}`);
      out.push({ name: h.name.toLowerCase(), value: h.value });
    }
    return out;
  };
  const set = pairs(raw.set, `${at}.set`);
  if (!Array.isArray(set)) return set;
  const add = pairs(raw.add, `${at}.add`);
  if (!Array.isArray(add)) return add;
  const remove: string[] = [];
  if (raw.remove !== undefined) {
    if (!Array.isArray(raw.remove) || raw.remove.length > 16)
      return unsupported(`${at}.remove`, "remove must be a list of at most 16 names");
    for (const [i, name] of raw.remove.entries()) {
      if (typeof name !== "string") return unsupported(`${at}.remove[${i}]`, "must be a header name");
      const clash = claim(name, `${at}.remove[${i}]`);
      if (clash) return clash;
      remove.push(name.toLowerCase());
    }
  }
  return { set, add, remove };
}

function compilePathModifier(raw: unknown, at: string, matches: MatchDraft[]): PathModifier | FieldProblem | undefined {
  if (raw === undefined) return undefined;
  if (!isJsonObject(raw)) return unsupported(at, "path must be a mapping");
  if (raw.type === "ReplaceFullPath") {
    const value = raw.replaceFullPath;
    const problem = typeof value === "string" ? pathValueProblem(value) : "is required";
    return problem
      ? unsupported(`${at}.replaceFullPath`, `replaceFullPath ${problem}`)
      : { type: "ReplaceFullPath", value: value as string };
  }
  if (raw.type === "ReplacePrefixMatch") {
    const only = matches.length === 1 ? matches[0] : undefined;
    if (!only || only.path.type !== "PathPrefix") {
      return unsupported(`${at}.type`, "ReplacePrefixMatch needs exactly one match, and it must be a PathPrefix");
    }
    const value = raw.replacePrefixMatch ?? "";
    const problem = typeof value !== "string" ? "must be a string" : value === "" ? null : pathValueProblem(value);
    if (problem) return unsupported(`${at}.replacePrefixMatch`, `replacePrefixMatch ${problem}`);
    return { type: "ReplacePrefixMatch", value: value as string, prefix: only.path.value };
  }
  return unsupported(`${at}.type`, `path modifier type ${String(raw.type)} is not ReplaceFullPath or ReplacePrefixMatch`);
}

/** What compiling one filter list needs from its rule. */
export interface FilterContext {
  /** The rule's matches (ReplacePrefixMatch needs exactly one PathPrefix). */
  matches: MatchDraft[];
  /** Resolves a RequestMirror's backendRef to a table backend. */
  resolveMirror(ref: Record<string, unknown>, at: string): { backend: string } | FieldProblem;
  /** Mirrors whose backend cannot be resolved: ResolvedRefs=False, and the mirror is left out. */
  unresolved: FieldProblem[];
  /** Where the filters sit: CORS is a rule's, never a backendRef's. */
  level: "rule" | "backendRef";
}

function compileMirror(raw: unknown, at: string, ctx: FilterContext): CompiledFilter | FieldProblem | null {
  const m = isJsonObject(raw) ? raw : {};
  if (!isJsonObject(m.backendRef) || typeof m.backendRef.name !== "string") {
    return unsupported(`${at}.backendRef`, "requestMirror needs a backendRef with a name");
  }
  if (m.percent !== undefined && m.fraction !== undefined) {
    return unsupported(at, "set percent or fraction, not both");
  }
  let percent = 100;
  if (m.percent !== undefined) {
    if (!Number.isInteger(m.percent) || (m.percent as number) < 0 || (m.percent as number) > 100) {
      return unsupported(`${at}.percent`, "percent must be an integer 0-100");
    }
    percent = m.percent as number;
  } else if (m.fraction !== undefined) {
    const f = isJsonObject(m.fraction) ? m.fraction : {};
    const numerator = f.numerator;
    const denominator = f.denominator ?? 100;
    if (
      !Number.isInteger(numerator) ||
      !Number.isInteger(denominator) ||
      (denominator as number) < 1 ||
      (numerator as number) < 0 ||
      (numerator as number) > (denominator as number)
    ) {
      return unsupported(`${at}.fraction`, "fraction needs 0 <= numerator <= denominator, denominator >= 1");
    }
    percent = ((numerator as number) / (denominator as number)) * 100;
  }
  const resolved = ctx.resolveMirror(m.backendRef, `${at}.backendRef`);
  if ("reason" in resolved) {
    ctx.unresolved.push({ ...resolved, effect: "the mirror is left out" });
    return null;
  }
  return { type: "RequestMirror", backend: resolved.backend, percent };
}

const ORIGIN = /^https?:\/\/(\*\.)?[a-z0-9]([-a-z0-9.]*[a-z0-9])?(:[0-9]{1,5})?$/;
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

function compileCors(raw: unknown, at: string): CompiledFilter | FieldProblem {
  const c = isJsonObject(raw) ? raw : {};
  const list = (key: string, valid: (v: string) => boolean, what: string): string[] | FieldProblem => {
    const value = c[key] ?? [];
    if (!Array.isArray(value) || value.length > 64 || !value.every((v) => typeof v === "string" && (v === "*" || valid(v)))) {
      return unsupported(`${at}.${key}`, `${key} must be a list of ${what}, or ["*"]`);
    }
    if (value.includes("*") && value.length > 1) return unsupported(`${at}.${key}`, `"*" must be ${key}'s only entry`);
    return value as string[];
  };
  const allowOrigins = list("allowOrigins", (v) => ORIGIN.test(v), 'origins like "https://app.example" or "https://*.example.com"');
  if (isProblem(allowOrigins)) return allowOrigins;
  const allowMethods = list("allowMethods", (v) => TOKEN.test(v), "HTTP methods");
  if (isProblem(allowMethods)) return allowMethods;
  const allowHeaders = list("allowHeaders", (v) => TOKEN.test(v), "header names");
  if (isProblem(allowHeaders)) return allowHeaders;
  const exposeHeaders = list("exposeHeaders", (v) => TOKEN.test(v), "header names");
  if (isProblem(exposeHeaders)) return exposeHeaders;
  const allowCredentials = c.allowCredentials ?? false;
  if (typeof allowCredentials !== "boolean") return unsupported(`${at}.allowCredentials`, "allowCredentials must be true or false");
  const maxAge = c.maxAge ?? 5;
  if (!Number.isInteger(maxAge) || (maxAge as number) < 0) return unsupported(`${at}.maxAge`, "maxAge must be seconds, 0 or more");
  return { type: "CORS", allowOrigins, allowCredentials, allowMethods, allowHeaders, exposeHeaders, maxAge: maxAge as number };
}

/** Compiles a filter list of a rule or a backendRef. */
export function compileFilters(raw: unknown, at: string, ctx: FilterContext): CompiledFilter[] | FieldProblem {
  const { matches } = ctx;
  if (raw === undefined) return [];
  if (!Array.isArray(raw)) return unsupported(at, "filters must be a list");
  const out: CompiledFilter[] = [];
  const seen = new Set<string>();
  for (const [i, f] of raw.entries()) {
    const here = `${at}[${i}]`;
    if (!isJsonObject(f) || typeof f.type !== "string") return unsupported(here, "filter needs a type");
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
        const r = isJsonObject(f.requestRedirect) ? f.requestRedirect : {};
        if (r.scheme !== undefined && r.scheme !== "http" && r.scheme !== "https")
          return unsupported(`${here}.requestRedirect.scheme`, "scheme must be http or https");
        if (r.hostname !== undefined && (typeof r.hostname !== "string" || hostnameProblem(r.hostname, false)))
          return unsupported(`${here}.requestRedirect.hostname`, "hostname must be a precise hostname");
        if (r.port !== undefined && !(Number.isInteger(r.port) && (r.port as number) >= 1 && (r.port as number) <= 65535))
          return unsupported(`${here}.requestRedirect.port`, "port must be 1-65535");
        const statusCode = r.statusCode ?? 302;
        if (typeof statusCode !== "number" || !REDIRECT_CODES.includes(statusCode))
          return unsupported(`${here}.requestRedirect.statusCode`, `statusCode must be one of ${REDIRECT_CODES.join(", ")}`);
        const path = compilePathModifier(r.path, `${here}.requestRedirect.path`, matches);
        if (isProblem(path)) return path;
        out.push({
          type: "RequestRedirect",
          scheme: r.scheme,
          hostname: r.hostname as string | undefined,
          port: r.port as number | undefined,
          path,
          statusCode,
        });
        break;
      }
      case "URLRewrite": {
        const r = isJsonObject(f.urlRewrite) ? f.urlRewrite : {};
        if (r.hostname !== undefined && (typeof r.hostname !== "string" || hostnameProblem(r.hostname, false)))
          return unsupported(`${here}.urlRewrite.hostname`, "hostname must be a precise hostname");
        const path = compilePathModifier(r.path, `${here}.urlRewrite.path`, matches);
        if (isProblem(path)) return path;
        out.push({ type: "URLRewrite", hostname: r.hostname as string | undefined, path });
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
  return out;
}
