/**
 * @module RequestMirror: a copy of the request, as the filters before it shaped it, goes to one endpoint
 * of the mirror backend. Sent in the background (waitUntil): it never delays or fails the main request,
 * and its answer is discarded. A streamed (large or unsized) body is not mirrored.
 */
import type { PreparedTable } from "../routing/prepared-table";
import { pickEndpoint } from "../routing/select-backend";
import type { CompiledFilter } from "../table/route-table";
import type { RequestBody } from "./request-body";
import { egressAllowed, endpointUrl, fetcherFor, type UpstreamRequest } from "./upstream-request";

/** A mirror that has not answered by then is abandoned. */
const MIRROR_TIMEOUT_MS = 10_000;

export interface MirrorContext {
  prepared: PreparedTable;
  bindings: object;
  waitUntil(promise: Promise<unknown>): void;
}

export function sendMirrors(ctx: MirrorContext, filters: CompiledFilter[], upstream: UpstreamRequest, body: RequestBody): void {
  for (const f of filters) {
    if (f.type !== "RequestMirror" || Math.random() * 100 >= f.percent) continue;
    if (body.kind === "stream") continue;
    const backend = ctx.prepared.backends.get(f.backend);
    const endpoint = backend && pickEndpoint(ctx.prepared, backend, Math.random());
    const send = endpoint && egressAllowed(endpoint, ctx.prepared.table.egress?.allowedHostnames) && fetcherFor(endpoint, ctx.bindings);
    if (!endpoint || !send) continue;
    const copy = send(endpointUrl(endpoint, upstream.pathAndQuery), {
      method: upstream.method,
      headers: new Headers(upstream.headers),
      body: body.kind === "buffered" ? body.bytes.slice(0) : undefined,
      redirect: "manual",
      signal: AbortSignal.timeout(MIRROR_TIMEOUT_MS),
    })
      .then((response) => response.body?.cancel())
      .catch((error: unknown) => console.warn(`kedge: mirror to ${endpoint.id} failed`, error));
    ctx.waitUntil(copy);
  }
}
