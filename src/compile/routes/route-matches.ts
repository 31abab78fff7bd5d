/** @module Validates and normalises HTTPRouteMatch entries (spec §1.1–1.3). */
import { isJsonObject } from "../../gateway-api/manifest";
import type { CompiledPathMatch, CompiledValueMatch } from "../../table/route-table";
import { regexProblem } from "./re2-syntax";
import { type FieldProblem, isProblem } from "../status/problems";
import { unsupported } from "../status/conditions";

/** A match before it gets its id and position in the table. */
export interface MatchDraft {
  path: CompiledPathMatch;
  headers: CompiledValueMatch[];
  queryParams: CompiledValueMatch[];
  method?: string;
}

/** A rejected field: where and why, with the Gateway API reason. */
export const METHODS = ["GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH"];
const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+\-.^_`|~]+$/;
const PCHARS = /^(?:[A-Za-z0-9\-._~!$&'()*+,;=:@/]|%[0-9A-Fa-f]{2})+$/;

/** Problems with an Exact/PathPrefix value (spec §1.1 validation), or null. */
export function pathValueProblem(value: string): string | null {
  if (!value.startsWith("/")) return "must start with '/'";
  if (value.length > 1024) return "must be at most 1024 characters";
  if (!PCHARS.test(value)) return "may only contain RFC 3986 path characters or %XX escapes";
  if (/\/\/|\/\.\/|\/\.\.\/|%2f|#/i.test(value)) return "must not contain '//', '/./', '/../', '%2F' or '#'";
  if (/\/\.\.?$/.test(value)) return "must not end with '/..' or '/.'";
  return null;
}

/** Header values sent or matched must be printable, without CR/LF (header injection). */
export function headerValueProblem(value: string, max = 4096): string | null {
  if (value.length < 1 || value.length > max) return `must be 1 to ${max} characters`;
  // oxlint-disable-next-line no-control-regex -- control characters are exactly what this check refuses
  if (/[\u0000-\u0008\u000a-\u001f\u007f]/.test(value)) return "must not contain control characters (CR, LF, NUL ...)";
  return null;
}

export const headerNameProblem = (name: string): string | null =>
  HEADER_NAME.test(name) && name.length <= 256 ? null : "must be an HTTP header name (RFC 7230 token)";

function compilePath(raw: unknown, at: string): CompiledPathMatch | FieldProblem {
  if (raw === undefined) return { type: "PathPrefix", value: "/" };
  if (!isJsonObject(raw)) return unsupported(at, "path must be a mapping");
  const type = raw.type ?? "PathPrefix";
  const value = raw.value ?? "/";
  if (typeof value !== "string") return unsupported(`${at}.value`, "path value must be a string");
  if (type === "RegularExpression") {
    const problem = regexProblem(value);
    return problem ? unsupported(`${at}.value`, `path regex ${problem}`) : { type, value };
  }
  if (type !== "Exact" && type !== "PathPrefix") {
    return unsupported(`${at}.type`, `path type ${String(type)} is not Exact, PathPrefix or RegularExpression`);
  }
  const problem = pathValueProblem(value);
  if (problem) return unsupported(`${at}.value`, `path ${JSON.stringify(value)} ${problem}`);
  // A trailing '/' in a prefix is ignored: `/abc/` matches like `/abc`.
  const normalised = type === "PathPrefix" && value.length > 1 ? value.replace(/\/+$/, "") : value;
  return { type, value: normalised };
}

function compileValueMatches(raw: unknown, at: string, kind: "header" | "query"): CompiledValueMatch[] | FieldProblem {
  if (raw === undefined) return [];
  if (!Array.isArray(raw) || raw.length > 16) return unsupported(at, `${at} must be a list of at most 16`);
  const result: CompiledValueMatch[] = [];
  const seen = new Set<string>();
  for (const [i, m] of raw.entries()) {
    const here = `${at}[${i}]`;
    if (!isJsonObject(m) || typeof m.name !== "string" || typeof m.value !== "string") {
      return unsupported(here, `${kind} match needs a name and a string value`);
    }
    const type = m.type ?? "Exact";
    if (type !== "Exact" && type !== "RegularExpression") {
      return unsupported(`${here}.type`, `${kind} match type ${String(type)} is not Exact or RegularExpression`);
    }
    if (kind === "header" && headerNameProblem(m.name))
      return unsupported(`${here}.name`, `header name ${JSON.stringify(m.name)} ${headerNameProblem(m.name)}`);
    if (kind === "query" && m.name.length === 0) return unsupported(`${here}.name`, "query parameter name must not be empty");
    const problem = type === "RegularExpression" ? regexProblem(m.value) : headerValueProblem(m.value, kind === "header" ? 4096 : 1024);
    if (problem) return unsupported(`${here}.value`, `${kind} ${m.name} value ${problem}`);
    // Header names compare case-insensitively, query names case-sensitively; the first of equal names counts.
    const name = kind === "header" ? m.name.toLowerCase() : m.name;
    if (seen.has(name)) continue;
    seen.add(name);
    result.push({ name, type, value: m.value });
  }
  return result;
}

/** Compiles `rules[i].matches`; no matches means one prefix match on "/". */
export function compileMatches(raw: unknown, at: string): MatchDraft[] | FieldProblem {
  if (raw === undefined || (Array.isArray(raw) && raw.length === 0)) {
    return [{ path: { type: "PathPrefix", value: "/" }, headers: [], queryParams: [] }];
  }
  if (!Array.isArray(raw) || raw.length > 64) return unsupported(at, "matches must be a list of at most 64");
  const drafts: MatchDraft[] = [];
  for (const [j, m] of raw.entries()) {
    const here = `${at}[${j}]`;
    if (!isJsonObject(m)) return unsupported(here, "match must be a mapping");
    const path = compilePath(m.path, `${here}.path`);
    if (isProblem(path)) return path;
    const headers = compileValueMatches(m.headers, `${here}.headers`, "header");
    if (isProblem(headers)) return headers;
    const queryParams = compileValueMatches(m.queryParams, `${here}.queryParams`, "query");
    if (isProblem(queryParams)) return queryParams;
    if (m.method !== undefined && (typeof m.method !== "string" || !METHODS.includes(m.method))) {
      return unsupported(`${here}.method`, `method ${String(m.method)} is not one of ${METHODS.join(", ")}`);
    }
    drafts.push({ path, headers, queryParams, method: m.method as string | undefined });
  }
  return drafts;
}

export { isProblem };
