import { describe, expect, it } from 'vitest';
import type { Event } from '../../events/types.js';
import { InMemorySessionService } from '../../sessions/in-memory-session-service.js';
import type { SearchEventsOptions, SessionService } from '../../sessions/session-service.js';
import { compactionEvent, modelTextEvent, userTextEvent } from '../../testing/event-builders.js';
import {
  createRecallTool,
  type RecallResult,
  type RecallToolOptions,
  renderRecallItem,
} from './recall-tool.js';
import type { ToolContext } from './tool.js';

describe('renderRecallItem', () => {
  it('keeps the lines holding the searched words from the middle of a long tool output', () => {
    const filler = Array.from({ length: 120 }, (_, index) => `src/file_${index}.ts: nothing here`);
    const output = [
      ...filler.slice(0, 60),
      'NOTE The staging port for project orchid is 4821.',
      ...filler.slice(60),
    ];
    const event: Event = {
      seq: 42,
      id: 'e',
      invocationId: 'i',
      author: 'agent',
      timestamp: 1,
      actions: {},
      content: {
        role: 'user',
        parts: [
          { functionResponse: { id: 'c', name: 'grep', response: { output: output.join('\n') } } },
        ],
      },
    };
    const text = renderRecallItem({
      event,
      maxChars: 2000,
      query: 'What is the staging port for project orchid?',
    });
    expect(text).toContain('NOTE The staging port for project orchid is 4821.');
    expect(text.length).toBeLessThan(2400);
    // Without a query: head and tail only, the middle is gone.
    expect(renderRecallItem({ event, maxChars: 2000 })).not.toContain('4821');
  });
});

const key = { appName: 'recall-tool', userId: 'u', sessionId: 's' };
const day = 86_400;
/** 2024-05-01T00:00:00Z */
const may1 = 1_714_521_600;

/** A session of `texts` (one event each, a day apart from May 1st, 2024) summarized through `endSeq`. */
async function summarizedSession(
  texts: Array<string | { text: string; author: string }>,
  endSeq: number,
) {
  const sessionService = new InMemorySessionService();
  await sessionService.createSession(key);
  for (const [index, entry] of texts.entries()) {
    const { text, author } = typeof entry === 'string' ? { text: entry, author: 'user' } : entry;
    const build = author === 'user' ? userTextEvent : modelTextEvent;
    await sessionService.appendEvent({
      ...key,
      event: build({ text, author, timestamp: may1 + index * day }),
    });
  }
  await sessionService.appendCompaction({
    ...key,
    event: compactionEvent({ startSeq: 1, endSeq, timestamp: may1 + texts.length * day }),
    expectedCheckpointSeq: null,
  });
  return sessionService;
}

function context(): ToolContext {
  const state = new Map<string, unknown>();
  return {
    ...key,
    invocationId: 'i',
    agentName: 'agent',
    functionCallId: 'c',
    state: {
      get: <T>(name: string) => state.get(name) as T | undefined,
      has: (name: string) => state.has(name),
      set: (name: string, value: unknown) => void state.set(name, value),
      toObject: () => Object.fromEntries(state),
    },
  };
}

async function recall(
  sessionService: SessionService,
  args: Record<string, unknown>,
  options: RecallToolOptions = {},
): Promise<RecallResult> {
  const tool = createRecallTool({ sessionService, recall: options });
  return (await tool.run({ args, context: context() })) as RecallResult;
}

const filler = (index: number) => `small talk number ${index} about nothing much`;

describe('the recall tool answers passages', () => {
  it('gives each hit the events either side of it, merges windows that touch, stays in the summarized range', async () => {
    const texts = Array.from({ length: 20 }, (_, index) => filler(index + 1));
    texts[4] = 'The orchid deploy key rotates monthly.'; // seq 5
    texts[6] = 'Orchid deploys go through the blue pipeline.'; // seq 7
    texts[13] = 'The orchid staging port is 4821.'; // seq 14
    texts[15] = 'An event after the summary mentions orchid too.'; // seq 16
    const sessionService = await summarizedSession(texts, 15);
    const answer = await recall(sessionService, { query: 'orchid staging port' });
    expect(answer.compactedThroughSeq).toBe(15);
    const ranges = answer.passages?.map((passage) => [passage.fromSeq, passage.toSeq]);
    // 14 ranks first: its window 12..16 is clamped at the summary's end (15); 5 and 7 touch: 3..9.
    expect(ranges).toEqual([
      [12, 15],
      [3, 9],
    ]);
    const first = answer.passages?.[0]?.items ?? [];
    expect(first.map((item) => item.seq)).toEqual([12, 13, 14, 15]);
    expect(first.filter((item) => item.hit).map((item) => item.seq)).toEqual([14]);
    const second = answer.passages?.[1]?.items ?? [];
    expect(second.filter((item) => item.hit).map((item) => item.seq)).toEqual([5, 7]);
    expect(second.map((item) => item.seq)).toEqual([3, 4, 5, 6, 7, 8, 9]);
    // With no context: the hits alone.
    const bare = await recall(
      sessionService,
      { query: 'orchid staging port' },
      { contextEvents: 0 },
    );
    expect(bare.passages?.map((passage) => passage.items.map((item) => item.seq))).toEqual([
      [14],
      [5],
      [7],
    ]);
  });

  it('labels every item with its date and author', async () => {
    const sessionService = await summarizedSession(
      ['We met Priya at the harbor.', { text: 'Noted, the harbor meeting.', author: 'agent' }],
      2,
    );
    const answer = await recall(sessionService, { query: 'harbor meeting' });
    expect(
      answer.passages?.[0]?.items.map(({ seq, author, date }) => ({ seq, author, date })),
    ).toEqual([
      { seq: 1, author: 'user', date: '2024-05-01T00:00:00.000Z' },
      { seq: 2, author: 'agent', date: '2024-05-02T00:00:00.000Z' },
    ]);
    const range = await recall(sessionService, { fromSeq: 2, toSeq: 2 });
    expect(range.items?.[0]).toMatchObject({
      seq: 2,
      author: 'agent',
      date: '2024-05-02T00:00:00.000Z',
    });
  });

  it('pages with limit and cursor', async () => {
    const texts = Array.from({ length: 12 }, (_, index) =>
      index % 4 === 0 ? `lighthouse note ${index}` : filler(index),
    );
    const sessionService = await summarizedSession(texts, 12);
    const first = await recall(
      sessionService,
      { query: 'lighthouse', limit: 2 },
      { contextEvents: 0 },
    );
    const hitsOf = (result: RecallResult) =>
      result.passages?.flatMap((passage) => passage.items.map((item) => item.seq)) ?? [];
    expect(hitsOf(first)).toHaveLength(2);
    expect(first.nextCursor).toBe(2);
    const second = await recall(
      sessionService,
      { query: 'lighthouse', limit: 2, cursor: 2 },
      { contextEvents: 0 },
    );
    expect(hitsOf(second)).toHaveLength(1);
    expect(second.nextCursor).toBeUndefined();
    expect([...hitsOf(first), ...hitsOf(second)].sort((a, b) => a - b)).toEqual([1, 5, 9]);
    const past = await recall(sessionService, { query: 'lighthouse', cursor: 3 });
    expect(past).toMatchObject({ passages: [], note: 'no more hits for this query' });
    // A cursor past the store's largest page is the end, not an error.
    const far = await recall(sessionService, { query: 'lighthouse', cursor: 5000 });
    expect(far).toMatchObject({ passages: [], note: 'no more hits for this query' });
    await expect(recall(sessionService, { query: 'lighthouse', limit: 21 })).rejects.toThrow(
      /limit/,
    );
  });

  it('passes after, before and authors to the store, and drops hits outside them', async () => {
    const texts = [
      'kettle one',
      { text: 'kettle two', author: 'agent' },
      'kettle three',
      'kettle four',
    ];
    const store = await summarizedSession(texts, 4);
    const seen: SearchEventsOptions[] = [];
    // A store that ignores the filters: the tool must still apply them.
    const spy: SessionService = Object.assign(Object.create(store) as SessionService, {
      searchEvents: (options: SearchEventsOptions) => {
        seen.push(options);
        const { after: _after, before: _before, authors: _authors, ...rest } = options;
        return store.searchEvents!(rest);
      },
    });
    const answer = await recall(
      spy,
      { query: 'kettle', after: '2024-05-01T12:00:00Z', before: '2024-05-04', authors: ['user'] },
      { contextEvents: 0 },
    );
    expect(seen[0]).toMatchObject({
      after: may1 + day / 2,
      before: may1 + 3 * day,
      authors: ['user'],
    });
    expect(answer.passages?.map((passage) => passage.items[0]?.seq)).toEqual([3]);
    await expect(recall(store, { query: 'kettle', after: 'last tuesday' })).rejects.toThrow(
      /after: expected an ISO 8601 date .*"last tuesday"/,
    );
  });

  it('names what the hits mention for a second search', async () => {
    const sessionService = await summarizedSession(
      ['The login bug was fixed by Marta Okafor in checkout-api/src/session.ts yesterday.'],
      1,
    );
    const answer = await recall(sessionService, { query: 'who fixed the login bug' });
    expect(answer.hint).toContain('"Marta Okafor"');
    expect(answer.hint).toContain('"checkout-api/src/session.ts"');
  });

  it('drops context, lowest-ranked passage first, to fit maxAnswerChars; hits stay', async () => {
    const texts = Array.from({ length: 30 }, (_, index) => `${filler(index)} ${'x'.repeat(200)}`);
    texts[4] = 'walrus migration plan walrus'; // seq 5, ranks first
    texts[19] = 'walrus sighting'; // seq 20
    const sessionService = await summarizedSession(texts, 30);
    const answer = await recall(sessionService, { query: 'walrus' }, { maxAnswerChars: 1200 });
    const passages = answer.passages ?? [];
    expect(passages.map((passage) => passage.items.map((item) => item.seq))).toEqual([
      [3, 4, 5, 6, 7],
      [20],
    ]);
  });
});
