/**
 * @module Session persistence at request time: find the endpoint a request's token pins it to, or start
 * a session on the endpoint load balancing chose. Tokens are verified before any Durable Object call;
 * hot sessions come from the isolate cache; a store that fails degrades to plain load balancing. Only a
 * request its pinned endpoint answered extends the session (`keepSession`): a pin that failed does not.
 */
import type { PreparedBackend, PreparedTable } from "../routing/prepared-table";
import { SessionCache, writeBehindMs } from "../session/session-cache";
import { presentedTokens } from "../session/session-cookie";
import { isExpired, type SessionRecord } from "../session/session-record";
import { sameText } from "../session/constant-time";
import { newSessionId, sessionKey, signToken, tokenId, verifyToken } from "../session/session-token";
import type { CompiledBackendRef, CompiledEndpoint, CompiledRule, CompiledSession } from "../table/route-table";
import type { Env } from "./env";

export interface SessionDeps {
  env: Env;
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

const cache = new SessionCache();
let warnedMissingKey = false;

function key(env: Env): Promise<CryptoKey> | null {
  const secret = env.SESSION_HMAC_KEY;
  if (typeof secret === "string" && secret.length >= 16) return sessionKey(secret);
  if (!warnedMissingKey) {
    warnedMissingKey = true;
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
 * null: a warm sticky request then skips the HMAC. Compared in constant time, like a MAC.
 */
function knownTokenId(scope: string, token: string): string | null {
  const id = tokenId(token);
  const cached = id === null ? undefined : cache.peek(`${scope}#${id}`);
  return cached && sameText(cached.token, token) ? id : null;
}

/** The session's record, from the isolate cache or the store. Reading it does not extend the session. */
async function findRecord(deps: SessionDeps, scope: string, id: string, token: string): Promise<SessionRecord | null> {
  const cacheKey = `${scope}#${id}`;
  const cached = cache.get(cacheKey);
  if (cached && !isExpired(cached.record, deps.now)) return cached.record;
  // Not cached, or expired by this isolate's view: the store decides (another isolate may have seen it since).
  cache.delete(cacheKey);
  const record = await store(deps.env, scope, id).lookup(id, deps.now);
  if (record) cache.set(cacheKey, { record, token, persistedLastSeen: record.lastSeen });
  return record;
}

/**
 * The pinned endpoint answered: the session's last-seen time moves to now, in the isolate at once and in
 * the store written behind (at most every writeBehindMs per session).
 */
export function keepSession(deps: SessionDeps, pinned: Pinned): void {
  const cached = cache.peek(`${pinned.scope}#${pinned.id}`);
  if (!cached) return;
  cached.record.lastSeen = Math.max(cached.record.lastSeen, deps.now);
  if (cached.record.lastSeen - cached.persistedLastSeen < writeBehindMs(cached.record)) return;
  cached.persistedLastSeen = cached.record.lastSeen;
  deps.waitUntil(
    store(deps.env, pinned.scope, pinned.id)
      .touch(pinned.id, cached.record.lastSeen)
      .catch((error: unknown) => console.warn("kedge: session last-seen update failed", error)),
  );
}

/** Terminating-but-serving endpoints keep their sessions (drain); unready ones do not. */
const keepsSessions = (e: CompiledEndpoint): boolean => e.ready || (e.serving && e.terminating);

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
  const tokens = presentedTokens(session, headers);
  if (tokens.length === 0) return null;
  const hmac = key(deps.env);
  if (!hmac) return null;
  let id: string | null = null;
  let verified = "";
  for (const token of tokens) {
    id = knownTokenId(session.scope, token) ?? (await verifyToken(await hmac, session.scope, token));
    if (id) {
      verified = token;
      break;
    }
  }
  if (!id) return null;
  let record: SessionRecord | null;
  try {
    record = await findRecord(deps, session.scope, id, verified);
  } catch (error) {
    console.warn(`kedge: session store unavailable for ${session.scope}; balancing this request`, error);
    return null;
  }
  if (!record) return null;
  const refIndex = rule.backendRefs.findIndex((r) => r.backend === record.backend);
  const ref = rule.backendRefs[refIndex];
  const backend = prepared.backends.get(record.backend);
  const endpoint = backend?.backend.endpoints.find((e) => e.id === record.endpoint);
  if (!ref || !backend || !endpoint || !keepsSessions(endpoint)) return null;
  return { scope: session.scope, id, ref, refIndex, backend, endpoint };
}

/** Starts a session pinned to `endpoint` of `backend`; resolves to the token to hand out, or null if none can be. */
export async function startSession(deps: SessionDeps, session: CompiledSession, backend: string, endpoint: string): Promise<string | null> {
  const hmac = key(deps.env);
  if (!hmac) return null;
  const id = newSessionId();
  const record: SessionRecord = {
    backend,
    endpoint,
    createdAt: deps.now,
    lastSeen: deps.now,
    ...(session.absoluteTimeoutMs !== undefined ? { absoluteTimeoutMs: session.absoluteTimeoutMs } : {}),
    ...(session.idleTimeoutMs !== undefined ? { idleTimeoutMs: session.idleTimeoutMs } : {}),
  };
  try {
    await store(deps.env, session.scope, id).create(id, record);
  } catch (error) {
    console.warn(`kedge: session store unavailable for ${session.scope}; no session issued`, error);
    return null;
  }
  const token = await signToken(await hmac, session.scope, id);
  cache.set(`${session.scope}#${id}`, { record: { ...record }, token, persistedLastSeen: deps.now });
  return token;
}
