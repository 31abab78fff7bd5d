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
  return { kind: "stream", stream: streamThrough(request, stream, length) };
}

/**
 * A streamed body's one reader of the client's stream, kept by the gateway so that what a failed upstream
 * try left unread can still be drained. A stream takes one pending read at a time, so the copy into the
 * upstream's stream hands over to the drain: the drain takes the read in flight and the copy stops.
 */
interface HandedOver {
  reader: ReadableStreamDefaultReader<Uint8Array>;
  /** The copy's read waiting for the client's next chunk, if any. */
  reading: Promise<ReadableStreamReadResult<Uint8Array>> | undefined;
  /** Set by the drain: the copy writes nothing more. */
  drained: boolean;
}

const handedOver = new WeakMap<Request, HandedOver>();

/**
 * The body as a stream the upstream reads through the gateway's own reader of the client's body, its length
 * kept (FixedLengthStream). Were the client's stream handed to fetch() itself, a try that fails would leave
 * it locked and unread, and workerd would drop the client's keep-alive connection with it; this way
 * discardRequestBody can still read what is left.
 */
function streamThrough(request: Request, stream: ReadableStream<Uint8Array>, length: number): ReadableStream<Uint8Array> {
  const body: HandedOver = { reader: stream.getReader(), reading: undefined, drained: false };
  handedOver.set(request, body);
  const { readable, writable } = Number.isFinite(length) ? new FixedLengthStream(length) : new TransformStream<Uint8Array, Uint8Array>();
  const writer = writable.getWriter();
  void (async () => {
    try {
      for (;;) {
        body.reading = body.reader.read();
        const chunk = await body.reading;
        body.reading = undefined;
        if (body.drained) break;
        if (chunk.done) return await writer.close();
        await writer.write(chunk.value);
        if (body.drained) break;
      }
      await writer.abort(new Error("the upstream try failed")).catch(() => undefined);
    } catch (error) {
      // The upstream stopped taking it (a try that failed): the rest stays in the reader, for discardRequestBody.
      await writer.abort(error).catch(() => undefined);
    }
  })();
  return readable;
}

export const isReplayable = (body: RequestBody): boolean => body.kind !== "stream";

/** The body for one send (each send of a buffered body gets its own copy of the bytes' view). */
export function bodyForSend(body: RequestBody): BodyInit | undefined {
  return body.kind === "none" ? undefined : body.kind === "buffered" ? body.bytes : body.stream;
}

/** The most of an unforwarded body read to keep the client's connection; past it, the connection goes. */
export const MAX_DISCARD_BYTES = 1024 * 1024;
/** How long the answer waits for that body: a slow upload does not hold back the gateway's answer. */
export const MAX_DISCARD_MS = 1000;

/**
 * Reads and drops the body of a request the gateway answers itself (an error, a redirect, a preflight),
 * also what is left of one an upstream try that failed did not read. workerd drops a keep-alive connection
 * whose request body was left unread, which fails the client's next request on it; a body larger than
 * MAX_DISCARD_BYTES, or slower than MAX_DISCARD_MS, is cancelled and costs that connection instead.
 */
export async function discardRequestBody(request: Request): Promise<void> {
  const stream = request.body;
  const kept = handedOver.get(request);
  if (!kept && (stream === null || request.bodyUsed || stream.locked)) return;
  const reader = kept?.reader ?? stream!.getReader();
  // The copy's read in flight, if the failed try left one, is the drain's first.
  let pending = kept?.reading;
  if (kept) kept.drained = true;
  // Cancelling ends a pending read as done.
  const giveUp = () => reader.cancel().catch(() => undefined);
  const timer = setTimeout(giveUp, MAX_DISCARD_MS);
  try {
    for (let read = 0; read <= MAX_DISCARD_BYTES;) {
      const chunk = await (pending ?? reader.read());
      pending = undefined;
      if (chunk.done) return;
      read += chunk.value.byteLength;
    }
    await giveUp();
  } catch {
    // A client that went away: nothing left to keep.
  } finally {
    clearTimeout(timer);
  }
}
