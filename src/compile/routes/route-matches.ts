/**
 * @module Validates and normalises HTTPRouteMatch entries (spec §1.1–1.3): what the schema stage does not
 * check (path values, header value characters, RE2 syntax), defaults, and duplicate names.
 */
import type { CompiledPathMatch, CompiledValueMatch } from "../../table/route-table";
import type { HTTPPathMatch, HTTPRouteMatch } from "../input/typed-objects";
import { regexProblem } from "./re2-syntax";
import { type FieldProblem, isProblem } from "../status/problems";
import { unsupported } from "../status/conditions";
import { kept } from "../kept";

/** A match before it gets its id and position in the table. */
export interface MatchDraft {
  path: CompiledPathMatch;
  headers: CompiledValueMatch[];
  queryParams: CompiledValueMatch[];
  method?: string;
}

const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+\-.^_`|~]+$/;
const PCHARS = /^(?:[A-Za-z0-9\-._~!$&'()*+,;=:@/]|%[0-9A-Fa-f]{2})+$/;

/** Problems with an Exact/PathPrefix value (spec §1.1 validation, the CRD's CEL rules; its length is the schema's), or null. */
export function pathValueProblem(value: string): string | null {
  if (!value.startsWith("/")) return "must start with '/'";
  if (!PCHARS.test(value)) return "may only contain RFC 3986 path characters or %XX escapes";
  if (/\/\/|\/\.\/|\/\.\.\/|%2f|#/i.test(value)) return "must not contain '//', '/./', '/../', '%2F' or '#'";
  if (/\/\.\.?$/.test(value)) return "must not end with '/..' or '/.'";
  return null;
}

/** Header values sent or matched must be printable, without CR/LF (header injection); their length is the schema's. */
export function headerValueProblem(value: string): string | null {
  // oxlint-disable-next-line no-control-regex -- control characters are exactly what this check refuses
  if (/[\u0000-\u0008\u000a-\u001f\u007f]/.test(value)) return "must not contain control characters (CR, LF, NUL ...)";
  return null;
}

/** A header name's problem: the schema checks the names of matches and of set and add, not those of remove. */
export const headerNameProblem = (name: string): string | null =>
  HEADER_NAME.test(name) && name.length <= 256 ? null : "must be an HTTP header name (RFC 7230 token)";

function compilePath(raw: HTTPPathMatch | undefined, at: string): CompiledPathMatch | FieldProblem {
  if (raw === undefined) return { type: "PathPrefix", value: "/" };
  const type = raw.type ?? "PathPrefix";
  const value = raw.value ?? "/";
  if (type === "RegularExpression") {
    const problem = regexProblem(value);
    return problem ? unsupported(`${at}.value`, `path regex ${problem}`) : { type, value };
  }
  const problem = pathValueProblem(value);
  if (problem) return unsupported(`${at}.value`, `path ${JSON.stringify(value)} ${problem}`);
  // A trailing '/' in a prefix is ignored: `/abc/` matches like `/abc`.
  const normalised = type === "PathPrefix" && value.length > 1 ? value.replace(/\/+$/, "") : value;
  return { type, value: normalised };
}

/** A header or query parameter match; its name is a header name to the schema either way. */
type ValueMatch = NonNullable<HTTPRouteMatch["headers"] | HTTPRouteMatch["queryParams"]>[number];

function compileValueMatches(raw: ValueMatch[] | undefined, at: string, kind: "header" | "query"): CompiledValueMatch[] | FieldProblem {
  if (raw === undefined || raw.length === 0) return kept([]);
  const result: CompiledValueMatch[] = [];
  const seen = new Set<string>();
  for (const [i, m] of raw.entries()) {
    const here = `${at}[${i}]`;
    const type = m.type ?? "Exact";
    // Control characters (CR, LF) in a value pass the schema; an RE2 syntax error too.
    const problem = type === "RegularExpression" ? regexProblem(m.value) : headerValueProblem(m.value);
    if (problem) return unsupported(`${here}.value`, `${kind} ${m.name} value ${problem}`);
    // Header names compare case-insensitively, query names case-sensitively; the first of equal names counts.
    const name = kind === "header" ? m.name.toLowerCase() : m.name;
    if (seen.has(name)) continue;
    seen.add(name);
    result.push({ name, type, value: m.value });
  }
  return kept(result);
}

/** Compiles `rules[i].matches`; no matches means one prefix match on "/". */
export function compileMatches(raw: HTTPRouteMatch[] | undefined, at: string): MatchDraft[] | FieldProblem {
  if (raw === undefined || raw.length === 0) {
    return [{ path: { type: "PathPrefix", value: "/" }, headers: kept([]), queryParams: kept([]) }];
  }
  const drafts: MatchDraft[] = [];
  for (const [j, m] of raw.entries()) {
    const here = `${at}[${j}]`;
    const path = compilePath(m.path, `${here}.path`);
    if (isProblem(path)) return path;
    const headers = compileValueMatches(m.headers, `${here}.headers`, "header");
    if (isProblem(headers)) return headers;
    const queryParams = compileValueMatches(m.queryParams, `${here}.queryParams`, "query");
    if (isProblem(queryParams)) return queryParams;
    drafts.push({ path, headers, queryParams, method: m.method });
  }
  return kept(drafts);
}

export { isProblem };
