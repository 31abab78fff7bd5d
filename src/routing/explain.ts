/**
 * @module Where a request goes and why, told with the Worker's own code: the host index and matcher pick the
 * rule (matchRequest), each other candidate of the host says why it lost (it does not hold, or it holds
 * but ranks lower, and at which precedence step), the backendRefs' weights give each its share, the
 * endpoint pool (poolFor) gives the endpoints a new request is balanced over, with health and locality,
 * and the rule's filter slots list the filters in the order the Worker applies them.
 */
import { presentedTokens } from "../session/session-cookie";
import { isSealed, openToken, type Pin, sessionKeys, unverifiedPin } from "../session/session-token";
import type { CompiledEndpoint, CompiledSession, SourceRef } from "../table/route-table";
import { candidatesFor, matchHolds, matchRequest, type RequestFacts } from "./match-request";
import { ALL_HEALTHY, type EndpointHealth, poolFor } from "./endpoint-pool";
import { localityTier, type RequestLocation } from "./locality";
import { priorityOf } from "./priority";
import { type PreparedMatch, type PreparedTable, slotsOf } from "./prepared-table";
import { precedenceStep } from "../table/precedence";

export interface CandidateVerdict {
  match: string;
  rule: string;
  /** "chosen", or why it did not take the request. */
  verdict: string;
}

export interface EndpointView {
  id: string;
  cluster: string;
  /** The VPC network binding it is reached through, if any. */
  network?: string;
  ready: boolean;
  terminating: boolean;
  healthy: boolean;
  /** Whether a new request from the request's location is balanced over it now. */
  inPool: boolean;
  /** Locality tier for the request's location (0 nearest), when the table has a locality policy. */
  tier?: number;
  /** Its cluster is draining: no new sessions or unpinned requests; pinned sessions stay. */
  draining?: true;
  /** Its cluster's failover priority, when the table has priorities (0 first). */
  priority?: number;
}

export interface BackendView {
  backend?: string;
  source?: SourceRef;
  weight: number;
  /** Share of new requests, in percent. */
  share: number;
  invalid?: string;
  endpoints: EndpointView[];
}

export interface Explanation {
  request: { protocol: string; host: string; port?: number; method: string; path: string };
  rule: { id: string; source: SourceRef; listenerPort: number; match?: string } | null;
  candidates: CandidateVerdict[];
  backends: BackendView[];
  session?: CompiledSession;
  /**
   * Where the request's session token pins it: opened with the session secret when explain was given it;
   * a token of the earlier signed form is read without it. What the Worker uses while the endpoint is
   * still in the table, ready and healthy.
   */
  pinned?: Pin & { checked: boolean };
  /** The request carries a session token whose pin could not be read, and why (no key, or the key does not open it). */
  pinUnread?: string;
  /** In the order the Worker applies them. */
  filters: string[];
  invalid?: string;
  /**
   * When no listener of the request's protocol takes its host: the other protocols whose listeners do, with
   * the ports of the rules that take it (an https request for a host served only over http, or the reverse).
   */
  hostServedOn?: { protocol: string; ports: number[] }[];
}

/** The protocols other than the request's whose routes take `host`, with their listener ports. */
function otherProtocolsServing(prepared: PreparedTable, req: RequestFacts): { protocol: string; ports: number[] }[] {
  const served: { protocol: string; ports: number[] }[] = [];
  for (const [protocol, index] of Object.entries(prepared.hosts)) {
    if (protocol === req.protocol || !index) continue;
    const ports = new Set<number>();
    for (const m of candidatesFor(index, req.host).candidates) {
      const port = prepared.rules[m.rule]?.listenerPort;
      if (port !== undefined) ports.add(port);
    }
    if (ports.size > 0) served.push({ protocol, ports: [...ports].sort((a, b) => a - b) });
  }
  return served.sort((a, b) => a.protocol.localeCompare(b.protocol));
}

/** Why a candidate does not hold for the request: the first condition that fails. */
function whyNot(m: PreparedMatch, req: RequestFacts): string {
  const one = (probe: PreparedMatch) => matchHolds(probe, req);
  if (m.method !== undefined && m.method !== req.method) return `method ${req.method} is not ${m.method}`;
  if (!one({ ...m, method: undefined, conditions: false })) return `path ${req.path} does not match ${m.pathType} ${m.pathValue}`;
  for (const h of m.match.headers) {
    const actual = req.headers.get(h.name);
    if (actual === null) return `header ${h.name} is missing`;
  }
  for (const q of m.match.queryParams) if (req.query.get(q.name) === null) return `query parameter ${q.name} is missing`;
  return "a header or query parameter has another value";
}

export function explainRequest(
  prepared: PreparedTable,
  req: RequestFacts,
  at: RequestLocation = {},
  health: EndpointHealth = ALL_HEALTHY,
): Explanation {
  const request = { protocol: req.protocol, host: req.host, port: req.port, method: req.method, path: req.path };
  const index = prepared.hosts[req.protocol];
  const chosen = matchRequest(prepared, req);
  const candidates: CandidateVerdict[] = [];
  if (index) {
    const set = candidatesFor(index, req.host);
    const winner = chosen ? set.candidates.find((m) => m.rule === chosen.ruleIndex && matchHolds(m, req)) : undefined;
    const ports = prepared.listenerPorts[req.protocol];
    for (const m of set.candidates) {
      const rule = prepared.rules[m.rule]!;
      const verdict =
        m === winner
          ? "chosen"
          : ports?.has(req.port ?? -1) && rule.listenerPort !== req.port
            ? `attached through a listener on port ${rule.listenerPort}, not ${req.port}`
            : !matchHolds(m, req)
              ? whyNot(m, req)
              : winner
                ? `holds, but ranks lower: ${precedenceStep(winner.match, m.match)}`
                : "holds";
      candidates.push({ match: m.match.id, rule: rule.id, verdict });
    }
  }
  if (!chosen) {
    // No candidate at all: no listener of this protocol takes the host; say where it is served instead.
    const servedOn = candidates.length === 0 ? otherProtocolsServing(prepared, req) : [];
    return { request, rule: null, candidates, backends: [], filters: [], ...(servedOn.length > 0 ? { hostServedOn: servedOn } : {}) };
  }
  const { rule, ruleIndex } = chosen;
  const total = rule.backendRefs.reduce((sum, r) => sum + r.weight, 0);
  const backends: BackendView[] = rule.backendRefs.map((ref) => {
    const backend = ref.backend ? prepared.backends.get(ref.backend) : undefined;
    const pool = backend ? poolFor(prepared, backend, at, health).endpoints : [];
    const { locality, failover } = prepared.table;
    const view = (e: CompiledEndpoint): EndpointView => ({
      id: e.id,
      cluster: e.cluster,
      ...(e.network ? { network: e.network } : {}),
      ready: e.ready,
      terminating: e.terminating,
      healthy: health.usable(e),
      inPool: pool.includes(e),
      ...(locality ? { tier: localityTier(locality.clusters[e.cluster], at) } : {}),
      ...(prepared.table.clusters?.[e.cluster]?.draining ? { draining: true as const } : {}),
      ...(failover ? { priority: priorityOf(prepared.table, e) } : {}),
    });
    return {
      ...(ref.backend ? { backend: ref.backend } : {}),
      ...(backend ? { source: backend.backend.source } : {}),
      weight: ref.weight,
      share: total > 0 ? Math.round((ref.weight / total) * 1000) / 10 : 0,
      ...(ref.invalid ? { invalid: `${ref.invalid.reason}: ${ref.invalid.message}` } : {}),
      endpoints: backend ? backend.backend.endpoints.map(view) : [],
    };
  });
  const token = rule.session ? presentedTokens(rule.session, req.headers)[0] : undefined;
  const readable = token ? unverifiedPin(token) : null;
  const pinned = readable ? { ...readable, checked: false } : null;
  const pinUnread = token && isSealed(token) ? SEALED_WITHOUT_KEY : undefined;
  const slots = slotsOf(prepared, ruleIndex);
  const chosenMatch = candidates.find((c) => c.verdict === "chosen")?.match;
  // In the order they apply: each mirror where it was written among the request edits.
  const requestSide: string[] = slots.rule.request.map((f) => f.type);
  for (const m of [...slots.rule.mirrors].reverse()) requestSide.splice(m.editsBefore, 0, "RequestMirror");
  const filters = [
    ...requestSide,
    ...(slots.rule.redirect ? ["RequestRedirect (answers; nothing is forwarded)"] : []),
    ...(slots.rule.cors ? ["CORS"] : []),
    ...slots.rule.response.map(() => "ResponseHeaderModifier"),
  ];
  return {
    request,
    rule: { id: rule.id, source: rule.source, listenerPort: rule.listenerPort, ...(chosenMatch ? { match: chosenMatch } : {}) },
    candidates,
    backends,
    ...(rule.session ? { session: rule.session } : {}),
    ...(pinned ? { pinned } : {}),
    ...(pinUnread ? { pinUnread } : {}),
    filters,
    ...(rule.invalid ? { invalid: rule.invalid } : {}),
  };
}

const SEALED_WITHOUT_KEY = "the token's pin is sealed: give explain the session secret (SESSION_HMAC_KEY) to read it";

/**
 * The request's session token opened with the session secret, as the Worker opens it: a sealed pin read, a
 * signed one checked; a token the secret does not open is no session (the Worker balances the request).
 */
export async function readSessionPin(explanation: Explanation, headers: Headers, secret: string): Promise<Explanation> {
  const session = explanation.session;
  const token = session ? presentedTokens(session, headers)[0] : undefined;
  if (!session || !token) return explanation;
  const { pinned: _unchecked, pinUnread: _unread, ...rest } = explanation;
  const opened = await openToken(await sessionKeys(secret), session.scope, token);
  if (opened?.pin) return { ...rest, pinned: { ...opened.pin, checked: true } };
  return {
    ...rest,
    pinUnread: opened
      ? "the token is of the earliest form: its pin is in the SessionStore"
      : "the session secret given does not open the token (another secret, another rule, or altered): the Worker treats it as no session",
  };
}
