/**
 * `GET .../sessions/:session/stream?afterSeq=`: live updates as server-sent events. The store is
 * polled (`listEvents` after the last `seq` sent), so an append by any process or replica
 * reaches every viewer. Each message carries `id: <seq>`, so a reconnecting client resumes
 * with `Last-Event-ID`. The stream ends when the client goes away or the server starts shutting
 * down. Browsers' `EventSource` sends no `Authorization` header: with tokens, read it with
 * `fetch`.
 */
import type { Hono } from 'hono';
import type { Logger } from 'pino';
import type { SessionKey } from '../../events/types.js';
import { abortableDelay } from '../../util/abort.js';
import { integerQuery } from '../integer-query.js';
import type { ServerEnv } from '../server-env.js';
import { closeStream, sseResponse } from '../sse.js';
import type { StreamMessage } from './api-types.js';
import { type InspectorDeps, inspectorKeyOf, requireSession } from './inspector-deps.js';
import { HISTORY_PAGE_SIZE } from './session-history.js';
import { INSPECTOR_SESSION_PATH } from './session-routes.js';
import { isSpanEvent, toCompactionSpan, toTimelineEvent } from './timeline-event.js';

export const DEFAULT_STREAM_POLL_MS = 500;
export const DEFAULT_STREAM_KEEP_ALIVE_MS = 15_000;

const encoder = new TextEncoder();

function messageText(message: StreamMessage, seq: number): string {
  return `data: ${JSON.stringify(message)}\nid: ${seq}\n\n`;
}

/** Writes new events until `signal` aborts (or the store fails: logged, the stream ends). */
async function pump(options: {
  deps: InspectorDeps;
  key: SessionKey;
  afterSeq: number;
  signal: AbortSignal;
  write: (text: string) => void;
  logger: Logger;
}): Promise<void> {
  const { deps, key, signal, write } = options;
  const pollMs = deps.options.streamPollMs ?? DEFAULT_STREAM_POLL_MS;
  const keepAliveMs = deps.options.streamKeepAliveMs ?? DEFAULT_STREAM_KEEP_ALIVE_MS;
  let afterSeq = options.afterSeq;
  let lastWrite = Date.now();
  while (!signal.aborted) {
    let more = false;
    try {
      const page = await deps.sessionService.listEvents({
        ...key,
        afterSeq,
        limit: HISTORY_PAGE_SIZE,
        signal,
      });
      for (const event of page.events) {
        write(messageText({ type: 'event', event: toTimelineEvent(event) }, event.seq));
        if (isSpanEvent(event)) {
          write(
            messageText({ type: 'compaction', compaction: toCompactionSpan(event) }, event.seq),
          );
        }
        afterSeq = event.seq;
        lastWrite = Date.now();
      }
      more = page.nextCursor !== undefined && page.events.length > 0;
    } catch (error) {
      if (!signal.aborted) {
        options.logger.warn({ msgType: 'inspector_stream_failed', error }, 'stream ended');
      }
      return;
    }
    if (more) continue;
    if (Date.now() - lastWrite >= keepAliveMs) {
      write(': keep-alive\n\n');
      lastWrite = Date.now();
    }
    // An abort ends the wait early; the loop's check then ends the stream.
    await abortableDelay(pollMs, signal).catch(() => undefined);
  }
}

export function registerStreamRoute(app: Hono<ServerEnv>, deps: InspectorDeps): void {
  app.get(`${INSPECTOR_SESSION_PATH}/stream`, async (context) => {
    const key = inspectorKeyOf(context);
    const afterSeq =
      integerQuery({ value: context.req.query('afterSeq'), name: 'afterSeq', minimum: 0 }) ??
      integerQuery({
        value: context.req.header('last-event-id'),
        name: 'Last-Event-ID',
        minimum: 0,
      }) ??
      0;
    await requireSession(deps, key, context.req.raw.signal);
    const ended = new AbortController();
    const signal = AbortSignal.any([context.req.raw.signal, deps.shutdownSignal, ended.signal]);
    const logger = context.get('logger');
    const body = new ReadableStream<Uint8Array>({
      async start(controller) {
        try {
          await pump({
            deps,
            key,
            afterSeq,
            signal,
            logger,
            write: (text) => controller.enqueue(encoder.encode(text)),
          });
        } finally {
          closeStream(controller);
        }
      },
      cancel() {
        ended.abort();
      },
    });
    return sseResponse({ body, requestId: context.get('requestId') });
  });
}
