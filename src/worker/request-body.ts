/**
 * @module The request body, read once. A body that may be sent more than once (a retry, a mirror) is
 * buffered, but only when its Content-Length says it is small; anything else streams through once.
 */

/** Larger bodies, or bodies of unknown length, are streamed and never replayed. */
export const MAX_REPLAY_BYTES = 1024 * 1024;

export type RequestBody =
  /** GET/HEAD, or an empty body: replayable by definition. */
  | { kind: "none" }
  | { kind: "buffered"; bytes: ArrayBuffer }
  /** Sent once, as it arrives: neither retried nor mirrored. */
  | { kind: "stream"; stream: ReadableStream };

const NO_BODY: RequestBody = { kind: "none" };

/** Only a body to buffer is waited for; the others are known at once (no promise on the common path). */
export function readRequestBody(request: Request, method: string, replayWanted: boolean): RequestBody | Promise<RequestBody> {
  if (method === "GET" || method === "HEAD") return NO_BODY;
  const stream = request.body;
  if (stream === null) return NO_BODY;
  const length = Number(request.headers.get("content-length") ?? Number.NaN);
  if (replayWanted && Number.isFinite(length) && length <= MAX_REPLAY_BYTES)
    return request.arrayBuffer().then((bytes): RequestBody => ({ kind: "buffered", bytes }));
  return { kind: "stream", stream };
}

export const isReplayable = (body: RequestBody): boolean => body.kind !== "stream";

/** The body for one send (each send of a buffered body gets its own copy of the bytes' view). */
export function bodyForSend(body: RequestBody): BodyInit | undefined {
  return body.kind === "none" ? undefined : body.kind === "buffered" ? body.bytes : body.stream;
}
