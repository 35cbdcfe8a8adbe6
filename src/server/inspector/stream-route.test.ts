import { describe, expect, it } from 'vitest';
import type { SessionKey } from '../../events/types.js';
import { startTestServer } from '../test-helpers/test-server.js';
import type { StreamMessage } from './api-types.js';
import {
  APP,
  buildSession,
  inspectorFixture,
  TOKEN_ALICE,
} from './test-helpers/inspector-fixture.js';

const key: SessionKey = { appName: APP, userId: 'alice', sessionId: 'live' };
const streamPath = `/inspector/api/apps/${APP}/users/alice/sessions/live/stream`;

/** Reads SSE blocks (`data:`/`id:` messages and `:` comments) one at a time. */
function sseReader(body: ReadableStream<Uint8Array>) {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  return {
    /** The next block, or `undefined` once the stream ended. */
    async next(): Promise<string | undefined> {
      for (;;) {
        const end = buffer.indexOf('\n\n');
        if (end >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          return block;
        }
        const { done, value } = await reader.read();
        if (done) return undefined;
        buffer += decoder.decode(value, { stream: true });
      }
    },
    /** The next data message and its id, skipping comments. */
    async message(): Promise<{ data: StreamMessage; id: string } | undefined> {
      for (;;) {
        const block = await this.next();
        if (block === undefined) return undefined;
        if (block.startsWith(':')) continue;
        const lines = block.split('\n');
        const data = lines.find((line) => line.startsWith('data: '))?.slice(6);
        const id = lines.find((line) => line.startsWith('id: '))?.slice(4);
        if (data === undefined || id === undefined) throw new Error(`bad block ${block}`);
        return { data: JSON.parse(data) as StreamMessage, id };
      }
    },
    cancel: () => reader.cancel(),
  };
}

const compactionEvent = {
  id: 'compaction-1',
  invocationId: 'compaction',
  author: 'assistant',
  timestamp: 2,
  actions: {
    compaction: {
      startSeq: 1,
      endSeq: 2,
      startTimestamp: 0,
      endTimestamp: 0,
      compactedContent: { role: 'model' as const, parts: [{ text: 'Hello and hi.' }] },
      trigger: 'sliding_window' as const,
      tokensBefore: 40,
      tokensAfter: 12,
      summarizer: 'digest',
    },
  },
};

describe('GET .../stream', () => {
  it('sends each event appended after afterSeq, compactions twice, and ends on abort', async () => {
    const fixture = inspectorFixture({ inspector: { streamPollMs: 5 } });
    await buildSession(fixture.service, key, [{ user: 'hello' }, { model: 'hi' }]);
    const client = new AbortController();
    const response = await fixture.request(`${streamPath}?afterSeq=2`, { signal: client.signal });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const sse = sseReader(response.body!);

    await fixture.service.appendCompaction({
      ...key,
      event: compactionEvent,
      expectedCheckpointSeq: null,
    });
    await fixture.service.appendEvent({
      ...key,
      event: {
        id: 'next',
        invocationId: 'two',
        author: 'user',
        timestamp: 3,
        actions: {},
        content: { role: 'user', parts: [{ text: 'and now?' }] },
      },
    });
    const first = await sse.message();
    expect(first?.id).toBe('3');
    expect(first?.data).toMatchObject({ type: 'event', event: { seq: 3, kind: 'compaction' } });
    expect(await sse.message()).toEqual({
      id: '3',
      data: {
        type: 'compaction',
        compaction: {
          seq: 3,
          startSeq: 1,
          endSeq: 2,
          trigger: 'sliding_window',
          tokensBefore: 40,
          tokensAfter: 12,
          summarizer: 'digest',
          summary: 'Hello and hi.',
        },
      },
    });
    const third = await sse.message();
    expect(third?.data).toMatchObject({
      type: 'event',
      event: { seq: 4, kind: 'user', preview: 'and now?' },
    });

    client.abort();
    // The server's loop ends and closes the stream: the reader sees its end.
    expect(await sse.message()).toBeUndefined();
  });

  it('starts from the beginning by default, or after Last-Event-ID', async () => {
    const fixture = inspectorFixture({ inspector: { streamPollMs: 5 } });
    await buildSession(fixture.service, key, [
      { user: 'one' },
      { model: 'two' },
      { user: 'three' },
    ]);
    const all = new AbortController();
    const everything = sseReader((await fixture.request(streamPath, { signal: all.signal })).body!);
    const seqs = [];
    for (let index = 0; index < 3; index++) seqs.push((await everything.message())?.id);
    expect(seqs).toEqual(['1', '2', '3']);
    all.abort();

    const resumed = new AbortController();
    const after = sseReader(
      (
        await fixture.request(streamPath, {
          signal: resumed.signal,
          headers: { 'last-event-id': '2' },
        })
      ).body!,
    );
    expect((await after.message())?.id).toBe('3');
    resumed.abort();
    expect(await after.message()).toBeUndefined();
  });

  it('writes a keep-alive comment while nothing happens', async () => {
    const fixture = inspectorFixture({ inspector: { streamPollMs: 5, streamKeepAliveMs: 0 } });
    await buildSession(fixture.service, key, [{ user: 'quiet' }]);
    const client = new AbortController();
    const sse = sseReader(
      (await fixture.request(`${streamPath}?afterSeq=1`, { signal: client.signal })).body!,
    );
    expect(await sse.next()).toBe(': keep-alive');
    client.abort();
  });

  it('refuses a bad afterSeq and a missing session before streaming', async () => {
    const fixture = inspectorFixture();
    await buildSession(fixture.service, key, [{ user: 'x' }]);
    const bad = await fixture.request(`${streamPath}?afterSeq=-2`);
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ field: 'afterSeq' });
    const missing = await fixture.request(
      `/inspector/api/apps/${APP}/users/alice/sessions/nope/stream`,
    );
    expect(missing.status).toBe(404);
  });

  it('ends when the server shuts down, so the shutdown does not wait for it', async () => {
    const server = await startTestServer({
      tokens: true,
      serverOptions: { inspector: { streamPollMs: 5 } },
    });
    await buildSession(server.service, key, [{ user: 'hello' }]);
    const response = await fetch(`${server.url}${streamPath}`, {
      headers: { authorization: `Bearer ${TOKEN_ALICE}` },
    });
    const sse = sseReader(response.body!);
    expect((await sse.message())?.id).toBe('1');
    const report = await server.listening.shutdown({ timeoutMs: 30_000 });
    expect(report.aborted).toBe(0);
    expect(await sse.message()).toBeUndefined();
  }, 60_000);
});
