/**
 * @module Forwards a matched request to one endpoint: request filters, mirrors, the send (timeouts and
 * retries), then response filters. Upstream failures become GatewayErrors (502/504), never a crash.
 */
import { applyHeaderModifier } from "../routing/header-modifier";
import type { CompiledEndpoint, CompiledFilter, CompiledRule } from "../table/route-table";
import { GatewayError } from "./errors";
import { stripHopByHop } from "./forwarding-headers";
import { type MirrorContext, sendMirrors } from "./mirror";
import { readRequestBody } from "./request-body";
import { sendUpstream } from "./send-upstream";
import { buildUpstreamRequest, type RequestFacts } from "./upstream-request";

export interface ProxyInput extends RequestFacts {
  rule: CompiledRule;
  /** Filters of the chosen backendRef; they run after the rule's. */
  backendFilters: CompiledFilter[];
  endpoint: CompiledEndpoint;
  /** The table, the Worker's bindings (mTLS certificates) and waitUntil, for mirrors and sends. */
  mirror: MirrorContext;
  /** Another endpoint of the same backend for a retry, avoiding those tried; absent retries the same endpoint. */
  nextEndpoint?: (tried: CompiledEndpoint[]) => CompiledEndpoint | null;
  /** Told the outcome of every try (passive health). */
  onOutcome?: (endpoint: CompiledEndpoint, healthy: boolean) => void;
}

/** Sends the request upstream and returns the origin's response (streamed) and the endpoint that answered. */
export async function proxyToEndpoint(input: ProxyInput): Promise<{ response: Response; endpoint: CompiledEndpoint }> {
  const { rule } = input;
  const filters = [...rule.filters, ...input.backendFilters];
  const upstream = buildUpstreamRequest(input, filters);
  const replayWanted = rule.retry !== undefined || filters.some((f) => f.type === "RequestMirror");
  const reading = readRequestBody(input.request, input.line.method, replayWanted);
  const body = reading instanceof Promise ? await reading : reading;
  sendMirrors(input.mirror, filters, upstream, body);
  const sent = await sendUpstream({
    upstream,
    body,
    endpoint: input.endpoint,
    bindings: input.mirror.bindings,
    timeouts: rule.timeouts,
    receivedAt: input.receivedAt,
    retry: rule.retry,
    nextEndpoint: input.nextEndpoint,
    onOutcome: input.onOutcome,
    allowedHostnames: input.mirror.prepared.table.egress?.allowedHostnames,
  });
  const { response: answer, endpoint } = sent;
  if (upstream.webSocket && answer.status === 101) return { response: answer, endpoint };
  if (answer.status < 200) {
    // workerd's fetch() ends at an interim response (a 103 Early Hints, say): the final one never arrives.
    await answer.body?.cancel().catch(() => undefined);
    throw new GatewayError(
      "UPSTREAM_INTERIM_RESPONSE",
      `upstream ${endpoint.id} answered with the interim status ${answer.status}, which the runtime's fetch() cannot read past`,
    );
  }
  // Re-wrapping copies status and headers natively; only the edits below run in JS.
  const response = new Response(answer.body, answer);
  stripHopByHop(response.headers);
  for (const f of filters) if (f.type === "ResponseHeaderModifier") applyHeaderModifier(response.headers, f.modifier);
  response.headers.set("x-request-id", input.requestId);
  return { response, endpoint };
}
