/**
 * Server-sent events as the streaming routes write them (`POST /run_sse`, the inspector's
 * session stream): one `data:` line a message, a 200 that no proxy buffers, and a close that
 * tolerates a client already gone. See docs/architecture.md#inspector.
 */
const encoder = new TextEncoder();

/** One SSE message: `data: <json>` and the blank line that ends it. */
export function sseMessage(value: unknown): Uint8Array {
  return encoder.encode(`data: ${JSON.stringify(value)}\n\n`);
}

/** Closes the stream unless the client went away (it is already cancelled then). */
export function closeStream(controller: ReadableStreamDefaultController<Uint8Array>): void {
  try {
    controller.close();
  } catch {
    // The client went away: the stream is already cancelled.
  }
}

/** The 200 that carries an event stream, tagged with the request's id. */
export function sseResponse(options: {
  body: ReadableStream<Uint8Array>;
  requestId: string;
}): Response {
  return new Response(options.body, {
    status: 200,
    headers: {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      'x-accel-buffering': 'no',
      'x-request-id': options.requestId,
    },
  });
}
