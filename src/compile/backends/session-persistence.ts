/**
 * @module SessionPersistence (GEP-1619) as written on an XBackend (Gateway API v1.7), in an HTTPRoute rule
 * or in a backend policy. Reads both the released shape (`sessionName`, `cookieConfig.lifetimeType`,
 * `absoluteTimeout`, `idleTimeout`) and v1.7's (`cookie{name, path, lifetimeType}`, `header{name}`), and
 * turns a rule's choice into the table's `CompiledSession`, scoped to that rule. The schema stage checks
 * each field's type and bounds, but not the durations of kedge's own kinds (XBackend, BackendLBPolicy); the
 * rules across fields are CEL rules, and the cookie syntax is kedge's.
 */
import { parseDuration } from "../../gateway-api/duration";
import type { CompiledSession, SameSite } from "../../table/route-table";
import type { SessionPersistence } from "../input/typed-objects";
import { type FieldProblem, isProblem } from "../status/problems";
import { unsupported } from "../status/conditions";

/** Settings as written, before they are bound to a rule. */
export interface SessionSettings {
  type: "Cookie" | "Header";
  name?: string;
  path?: string;
  lifetime: "Session" | "Permanent";
  absoluteTimeoutMs?: number;
  idleTimeoutMs?: number;
}

/** RFC 7230 token: what both a cookie name and a header name may be. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]{1,128}$/;
/** RFC 6265 path-value: printable ASCII except space and ';', starting with '/'. */
const COOKIE_PATH = /^\/[\x21-\x3a\x3c-\x7e]*$/;
/** A session nobody configured a timeout for still ends: storage must not grow forever. */
export const DEFAULT_IDLE_TIMEOUT_MS = 24 * 3_600_000;

/** The schema checks a duration's pattern on the Gateway API kinds only: an XBackend's or a BackendLBPolicy's is any string. */
function duration(raw: string | undefined, field: string): number | undefined | FieldProblem {
  if (raw === undefined) return undefined;
  const ms = parseDuration(raw);
  if (ms === null || ms <= 0) return unsupported(field, `${JSON.stringify(raw)} is not a positive duration like 30m or 1h`);
  return ms;
}

/** The cookie settings of either shape (the released one has only lifetimeType). */
type CookieSettings = NonNullable<SessionPersistence["cookie"]>;
type HeaderSettings = Partial<NonNullable<SessionPersistence["header"]>>;

/** Validates one `sessionPersistence` block. */
export function parseSessionPersistence(raw: SessionPersistence, at: string): SessionSettings | FieldProblem {
  const fail = (field: string, message: string): FieldProblem => unsupported(`${at}${field}`, message);
  const type = raw.type ?? "Cookie";
  const cookie: CookieSettings | undefined = raw.cookie ?? raw.cookieConfig;
  const cookieField = raw.cookie !== undefined ? ".cookie" : ".cookieConfig";
  if (cookie !== undefined && type !== "Cookie") return fail(cookieField, `${cookieField.slice(1)} is only allowed with type Cookie`);
  if (raw.header !== undefined && type !== "Header") return fail(".header", "header is only allowed with type Header");
  const cookieConfig: CookieSettings = cookie ?? {};
  const header: HeaderSettings = raw.header ?? {};

  const name = (type === "Cookie" ? cookieConfig.name : header.name) ?? raw.sessionName;
  if (name !== undefined && (typeof name !== "string" || !TOKEN.test(name))) {
    return fail(type === "Cookie" ? ".cookie.name" : ".header.name", `${JSON.stringify(name)} is not a valid ${type.toLowerCase()} name`);
  }

  const path = cookieConfig.path;
  if (path !== undefined && (typeof path !== "string" || path.length > 1024 || !COOKIE_PATH.test(path))) {
    return fail(`${cookieField}.path`, "path must start with / and hold no ';', spaces or control characters (max 1024)");
  }
  const lifetime = cookieConfig.lifetimeType ?? "Session";
  if (lifetime !== "Session" && lifetime !== "Permanent")
    return fail(`${cookieField}.lifetimeType`, "lifetimeType must be Session or Permanent");

  const absoluteTimeoutMs = duration(raw.absoluteTimeout, `${at}.absoluteTimeout`);
  if (isProblem(absoluteTimeoutMs)) return absoluteTimeoutMs;
  const idleTimeoutMs = duration(raw.idleTimeout, `${at}.idleTimeout`);
  if (isProblem(idleTimeoutMs)) return idleTimeoutMs;
  if (lifetime === "Permanent" && absoluteTimeoutMs === undefined) {
    return fail(".absoluteTimeout", "a Permanent cookie needs absoluteTimeout (it becomes the cookie's Max-Age)");
  }
  return { type, name, path, lifetime, absoluteTimeoutMs, idleTimeoutMs };
}

/** Same behaviour, written twice (e.g. one policy per cluster of a CompositeBackend)? */
export const sameSettings = (a: SessionSettings, b: SessionSettings): boolean =>
  a.type === b.type &&
  a.name === b.name &&
  a.path === b.path &&
  a.lifetime === b.lifetime &&
  a.absoluteTimeoutMs === b.absoluteTimeoutMs &&
  a.idleTimeoutMs === b.idleTimeoutMs;

/** FNV-1a: a short, stable, synchronous hash for default session names. */
function fnv1a(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0).toString(16).padStart(8, "0");
}

/**
 * Binds settings to one route rule. `scope` (`<cluster>/<namespace>/<route>/rule/<i>`) keeps sessions of
 * two rules apart even when they share a backend; the default name is unique per rule.
 */
export function compileSession(settings: SessionSettings, scope: string, sameSite: SameSite): CompiledSession {
  const name = settings.name ?? (settings.type === "Cookie" ? `kedge-session-${fnv1a(scope)}` : `x-kedge-session-${fnv1a(scope)}`);
  const idle = settings.idleTimeoutMs ?? (settings.absoluteTimeoutMs === undefined ? DEFAULT_IDLE_TIMEOUT_MS : undefined);
  return {
    scope,
    type: settings.type,
    name,
    ...(settings.type === "Cookie" ? { path: settings.path ?? "/", sameSite, lifetime: settings.lifetime } : {}),
    ...(settings.absoluteTimeoutMs !== undefined ? { absoluteTimeoutMs: settings.absoluteTimeoutMs } : {}),
    ...(idle !== undefined ? { idleTimeoutMs: idle } : {}),
  };
}
