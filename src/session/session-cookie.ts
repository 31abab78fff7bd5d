/** @module Reading the session token from a request and writing it on a response (cookie or header). */
import type { CompiledSession } from "../table/route-table";

/** Every value of cookie `name` in a Cookie header, in order (a client may send one name for several paths). */
export function cookieValues(header: string | null, name: string): string[] {
  if (!header) return [];
  const values: string[] = [];
  for (const pair of header.split(";")) {
    const eq = pair.indexOf("=");
    if (eq === -1 || pair.slice(0, eq).trim() !== name) continue;
    let value = pair.slice(eq + 1).trim();
    if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1);
    values.push(value);
  }
  return values;
}

/** The candidate tokens a request carries for this session. */
export function presentedTokens(session: CompiledSession, headers: Pick<Headers, "get">): string[] {
  if (session.type === "Header") {
    const value = headers.get(session.name);
    return value ? [value.trim()] : [];
  }
  return cookieValues(headers.get("cookie"), session.name);
}

/**
 * `Set-Cookie` for a new session: HttpOnly, SameSite (Strict unless the edge settings say otherwise),
 * Secure on HTTPS (and always with SameSite=None, which browsers require). A Session cookie carries no
 * Expires/Max-Age; a Permanent one carries Max-Age = absoluteTimeout.
 */
export function sessionCookie(session: CompiledSession, token: string, https: boolean): string {
  const sameSite = session.sameSite ?? "Strict";
  const parts = [`${session.name}=${token}`, `Path=${session.path ?? "/"}`, "HttpOnly", `SameSite=${sameSite}`];
  if (https || sameSite === "None") parts.push("Secure");
  if (session.lifetime === "Permanent" && session.absoluteTimeoutMs) parts.push(`Max-Age=${Math.floor(session.absoluteTimeoutMs / 1000)}`);
  return parts.join("; ");
}

/** Adds the new token to a response. */
export function attachToken(headers: Headers, session: CompiledSession, token: string, https: boolean): void {
  if (session.type === "Header") headers.set(session.name, token);
  else headers.append("set-cookie", sessionCookie(session, token, https));
}
