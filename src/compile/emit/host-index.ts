/**
 * @module Builds the per-protocol host index: for every exact host, wildcard suffix and the catch-all,
 * the candidate matches already in precedence order. The Worker then needs one map lookup per request,
 * and its cost does not grow with routes on other hosts.
 */
import { hostnameMatches, isWildcard } from "../../gateway-api/hostname";
import type { HostIndex, Protocol } from "../../table/route-table";
import type { EdgeListener } from "../gateways/listener";
import type { Attachment } from "../routes/http-routes";
import { compareCandidates, type HostScore, type RankedMatch } from "../../table/precedence";

/** An attachment with the table matches it contributes. */
export interface IndexedAttachment extends Attachment {
  matches: RankedMatch[];
}

/** Listener specificity for a host: exact > longest wildcard > no hostname; -1 when it does not take the host. */
function listenerScore(listener: EdgeListener, host: string): number {
  // A Gateway's Hostname addresses make its hostname-less listener take those hosts, exactly.
  if (listener.addresses) return listener.addresses.includes(host) ? 1_000_000 : -1;
  if (listener.hostname === undefined) return 0;
  if (!hostnameMatches(listener.hostname, host)) return -1;
  return isWildcard(listener.hostname) ? 1 + listener.hostname.length : 1_000_000;
}

function hostScore(hostnames: string[] | null, host: string): HostScore | null {
  if (hostnames === null) return { exactLength: 0, patternLength: 0 };
  let best: HostScore | null = null;
  for (const pattern of hostnames) {
    if (!hostnameMatches(pattern, host)) continue;
    const score = isWildcard(pattern)
      ? { exactLength: 0, patternLength: pattern.length }
      : { exactLength: host.length, patternLength: host.length };
    if (
      !best ||
      score.exactLength > best.exactLength ||
      (score.exactLength === best.exactLength && score.patternLength > best.patternLength)
    )
      best = score;
  }
  return best;
}

/**
 * Candidate match indexes for one host, in precedence order. This is also the reference ("linear")
 * matcher: it scans every attachment, which is what the index saves the Worker from doing.
 */
export function candidatesForHost(
  attachments: IndexedAttachment[],
  host: string,
  listeners: EdgeListener[] = [...new Set(attachments.map((a) => a.listener))],
): number[] {
  let bestListener = -1;
  for (const l of listeners) bestListener = Math.max(bestListener, listenerScore(l, host));
  if (bestListener < 0) return [];
  const ranked: { score: HostScore; ranked: RankedMatch }[] = [];
  const seen = new Set<number>();
  for (const a of attachments) {
    if (listenerScore(a.listener, host) !== bestListener) continue;
    const score = hostScore(a.hostnames, host);
    if (!score) continue;
    for (const m of a.matches) {
      if (seen.has(m.index)) continue;
      seen.add(m.index);
      ranked.push({ score, ranked: m });
    }
  }
  return ranked.sort(compareCandidates).map((c) => c.ranked.index);
}

/** The host index of one protocol. Listeners without routes still claim their hosts (so those 404). */
export function buildHostIndex(protocol: Protocol, listeners: EdgeListener[], attachments: IndexedAttachment[]): HostIndex {
  const ofProtocol = attachments.filter((a) => a.listener.protocol === protocol);
  const patterns = new Set<string>();
  for (const l of listeners) if (l.protocol === protocol) for (const h of l.addresses ?? (l.hostname ? [l.hostname] : [])) patterns.add(h);
  for (const a of ofProtocol) for (const h of a.hostnames ?? []) patterns.add(h);
  // Only attachments that can serve a host take part in its ranking: those naming it exactly, and those
  // with a wildcard or no hostname. This keeps the build near-linear in routes instead of hosts × routes.
  const attachedListeners = [...new Set(ofProtocol.map((a) => a.listener))];
  const byExactHost = new Map<string, IndexedAttachment[]>();
  const broad: IndexedAttachment[] = [];
  for (const a of ofProtocol) {
    if (a.hostnames === null || a.hostnames.some(isWildcard)) broad.push(a);
    for (const h of a.hostnames ?? []) {
      if (isWildcard(h)) continue;
      const list = byExactHost.get(h) ?? [];
      list.push(a);
      byExactHost.set(h, list);
    }
  }
  const rank = (host: string, named: IndexedAttachment[] = []) =>
    candidatesForHost(broad.length === 0 ? named : [...new Set([...named, ...broad])], host, attachedListeners);
  const index: HostIndex = { exact: {}, wildcard: {}, any: rank("") };
  for (const pattern of [...patterns].sort()) {
    if (isWildcard(pattern)) {
      // A one-label host under the suffix that no exact name equals stands for "any other host here".
      index.wildcard[pattern.slice(2)] = rank(`\u0000.${pattern.slice(2)}`);
    } else {
      index.exact[pattern] = rank(pattern, byExactHost.get(pattern));
    }
  }
  return index;
}
