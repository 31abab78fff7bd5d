/**
 * @module Session persistence at request time: find the endpoint a request's token pins it to, or start
 * a session on the endpoint load balancing chose. The token carries its sealed pin, so a new session and a
 * resumed one are served without waiting for storage: tokens are verified before anything else, and the
 * SessionStore is asked only for what the token cannot say (whether a session older than its idle timeout
 * was used since, when this isolate has not seen it). Last-seen times are written behind, for sessions with
 * an idle timeout only. Only a request its pinned endpoint answered extends the session (`keepSession`).
 */
import type { PreparedBackend, PreparedTable } from "../routing/prepared-table";
import { type SessionCache, writeBehindMs } from "../session/session-cache";
import { presentedTokens } from "../session/session-cookie";
import { isExpired, type SessionRecord } from "../session/session-record";
import { sameText } from "../session/constant-time";
import { newSessionId, openToken, type Pin, sealToken, type SessionKeys, sessionKeys, tokenId } from "../session/session-token";
import type { CompiledBackend, CompiledBackendRef, CompiledEndpoint, CompiledRule, CompiledSession } from "../table/route-table";
import type { Env } from "./env";

export interface SessionDeps {
  env: Env;
  /** The isolate's session cache, and whether it has warned that the session secret is missing. */
  sessions: SessionCache & { warnedMissingKey?: boolean };
  /** The request's clock (milliseconds); the SessionStore judges expiry by the same clock. */
  now: number;
  waitUntil(promise: Promise<unknown>): void;
}

/** Where a live session sends its request. */
export interface Pinned {
  /** The session: its scope and id, for keepSession. */
  scope: string;
  id: string;
  ref: CompiledBackendRef;
  refIndex: number;
  backend: PreparedBackend;
  endpoint: CompiledEndpoint;
}

function keys(deps: SessionDeps): Promise<SessionKeys> | null {
  const secret = deps.env.SESSION_HMAC_KEY;
  if (typeof secret === "string" && secret.length >= 16) return sessionKeys(secret);
  if (!deps.sessions.warnedMissingKey) {
    deps.sessions.warnedMissingKey = true;
    console.error("kedge: session persistence is off: set the SESSION_HMAC_KEY secret (at least 16 characters)");
  }
  return null;
}

function store(env: Env, scope: string, id: string) {
  // One object per rule and first id character: a busy rule spreads over up to 64 objects.
  return env.SESSIONS.get(env.SESSIONS.idFromName(`${scope}#${id[0]}`));
}

/**
 * The session id of a token this isolate verified or issued before (the cache keeps the exact token), or
 * null: a warm sticky request then skips opening the token. Compared in constant time, like a MAC.
 */
function knownTokenId(cache: SessionCache, scope: string, token: string): string | null {
  const id = tokenId(token);
  const cached = id === null ? undefined : cache.peek(`${scope}#${id}`);
  return cached && sameText(cached.token, token) ? id : null;
}

/** The session's timeouts, as the rule now sets them. */
const timeouts = (session: CompiledSession): Pick<SessionRecord, "absoluteTimeoutMs" | "idleTimeoutMs"> => ({
  ...(session.absoluteTimeoutMs !== undefined ? { absoluteTimeoutMs: session.absoluteTimeoutMs } : {}),
  ...(session.idleTimeoutMs !== undefined ? { idleTimeoutMs: session.idleTimeoutMs } : {}),
});

/**
 * The live session's record, or null when it ended: from the isolate cache, else from the token's pin.
 * Only a pinned session older than its idle timeout, unknown to this isolate, asks the store whether it was
 * used since (a session the store never heard of was not). A token of the earlier form has its pin there.
 */
async function findRecord(
  deps: SessionDeps,
  session: CompiledSession,
  id: string,
  token: string,
  pin?: Pin,
): Promise<SessionRecord | null> {
  const cache = deps.sessions;
  const cacheKey = `${session.scope}#${id}`;
  const cached = cache.get(cacheKey);
  if (cached && !isExpired(cached.record, deps.now)) return cached.record;
  cache.delete(cacheKey);
  let record: SessionRecord | null;
  if (pin) {
    record = { ...pin, lastSeen: pin.createdAt, ...timeouts(session) };
    const { absoluteTimeoutMs } = record;
    if (absoluteTimeoutMs !== undefined && deps.now >= record.createdAt + absoluteTimeoutMs) return null;
    if (isExpired(record, deps.now)) {
      // Idle since it was issued, as far as the token can tell: the store knows whether it was used since.
      const stored = await store(deps.env, session.scope, id).lookup(id, deps.now);
      if (stored) record.lastSeen = stored.lastSeen;
    }
  } else {
    record = await store(deps.env, session.scope, id).lookup(id, deps.now);
  }
  if (!record || isExpired(record, deps.now)) return null;
  cache.set(cacheKey, { record, token, persistedLastSeen: record.lastSeen });
  return record;
}

/**
 * The pinned endpoint answered: the session's last-seen time moves to now, in the isolate at once and, for
 * a session with an idle timeout, in the store written behind (at most every writeBehindMs per session).
 */
export function keepSession(deps: SessionDeps, pinned: Pinned): void {
  const cached = deps.sessions.peek(`${pinned.scope}#${pinned.id}`);
  if (!cached) return;
  cached.record.lastSeen = Math.max(cached.record.lastSeen, deps.now);
  if (cached.record.idleTimeoutMs === undefined) return;
  if (cached.record.lastSeen - cached.persistedLastSeen < writeBehindMs(cached.record)) return;
  cached.persistedLastSeen = cached.record.lastSeen;
  deps.waitUntil(
    store(deps.env, pinned.scope, pinned.id)
      .touch(pinned.id, { ...cached.record })
      .catch((error: unknown) => console.warn("kedge: session last-seen update failed", error)),
  );
}

/** Terminating-but-serving endpoints keep their sessions (drain); unready ones do not. */
const keepsSessions = (e: CompiledEndpoint): boolean => e.ready || (e.serving && e.terminating);

/** The live session a request presents a token of: its id, the token that verified, and its record. */
async function liveSession(
  deps: SessionDeps,
  session: CompiledSession,
  headers: Headers,
): Promise<{ id: string; record: SessionRecord } | null> {
  const tokens = presentedTokens(session, headers);
  if (tokens.length === 0) return null;
  const secret = keys(deps);
  if (!secret) return null;
  let found: { id: string; pin?: Pin } | null = null;
  let verified = "";
  for (const token of tokens) {
    const known = knownTokenId(deps.sessions, session.scope, token);
    found = known ? { id: known } : await openToken(await secret, session.scope, token);
    if (found) {
      verified = token;
      break;
    }
  }
  if (!found) return null;
  const { id } = found;
  try {
    const record = await findRecord(deps, session, id, verified, found.pin);
    return record ? { id, record } : null;
  } catch (error) {
    console.warn(`kedge: session store unavailable for ${session.scope}; balancing this request`, error);
    return null;
  }
}

/**
 * The table version the request's live session started on ("" for a session from before versions were sealed
 * in pins), or null when the request has no live session. Asked only while a canary runs; the token opened here
 * is cached, so resuming it next costs a lookup.
 */
export async function sessionVersion(deps: SessionDeps, session: CompiledSession, headers: Headers): Promise<string | null> {
  const live = await liveSession(deps, session, headers);
  return live ? (live.record.version ?? "") : null;
}

/**
 * The endpoint the request's session is pinned to, or null: no token, a token that does not verify,
 * an expired session, or a pin whose backend or endpoint left the rule or is no longer ready (a
 * terminating endpoint that still serves keeps its sessions). A pin holds even when its backendRef's
 * weight is now 0. Whether the endpoint is healthy is the caller's question (the health view).
 */
export async function resumeSession(
  deps: SessionDeps,
  prepared: PreparedTable,
  rule: CompiledRule,
  session: CompiledSession,
  headers: Headers,
): Promise<Pinned | null> {
  const live = await liveSession(deps, session, headers);
  if (!live) return null;
  const { id, record } = live;
  const pinned = findPinned(prepared, rule, record);
  if (!pinned || !keepsSessions(pinned.endpoint)) return null;
  return { scope: session.scope, id, ...pinned };
}

/** What a session pin names a backend by: its target (the same whatever clusters it draws from), else its id. */
export const pinKey = (backend: CompiledBackend): string => backend.target ?? backend.id;

/**
 * The backendRef of the rule and the endpoint a pin names, or null when either left: the backend by its pin
 * key (or, for pins from tables before targets, its id), the endpoint by its cluster-qualified id. A cluster
 * joining or leaving changes a merged backend's id, never its target, so sessions on the clusters that stay
 * keep their endpoints.
 */
function findPinned(
  prepared: PreparedTable,
  rule: CompiledRule,
  pin: Pick<Pin, "backend" | "endpoint">,
): Omit<Pinned, "scope" | "id"> | null {
  for (const [refIndex, ref] of rule.backendRefs.entries()) {
    const backend = ref.backend === undefined ? undefined : prepared.backends.get(ref.backend);
    if (!backend || (pinKey(backend.backend) !== pin.backend && backend.backend.id !== pin.backend)) continue;
    const endpoint = backend.backend.endpoints.find((e) => e.id === pin.endpoint);
    if (endpoint) return { ref, refIndex, backend, endpoint };
  }
  return null;
}

/**
 * Starts a session pinned to `endpoint` of the backend `backend` names (its pin key), on table `version`; resolves
 * to the token to hand out, or null if none can be. Nothing is stored: the token carries the pin, and the
 * SessionStore hears of the session only once it is used again (and has an idle timeout).
 */
export async function startSession(
  deps: SessionDeps,
  session: CompiledSession,
  backend: string,
  endpoint: string,
  version?: string,
): Promise<string | null> {
  const secret = keys(deps);
  if (!secret) return null;
  const id = newSessionId();
  const on = version === undefined ? {} : { version };
  const token = await sealToken(await secret, session.scope, id, { backend, endpoint, createdAt: deps.now, ...on });
  const record: SessionRecord = { backend, endpoint, createdAt: deps.now, lastSeen: deps.now, ...timeouts(session), ...on };
  deps.sessions.set(`${session.scope}#${id}`, { record, token, persistedLastSeen: deps.now });
  return token;
}
