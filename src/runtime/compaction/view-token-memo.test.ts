/**
 * The context guard's token estimate of a view, memoized by content identity
 * (`ContentTokenMemo`): one memo kept across turns gives the full recompute's figure after
 * appends, a compaction, an elision rule and a branch switch, on the in-memory and SQLite
 * stores (whose cached views hand out the same event objects), and scans only what is new. The
 * guard's running total per view (`OrphanCallRestorer.contentTokens`, kept with the extended
 * view) equals the same full recompute at every step, and plain appends sum only what is new.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { scopeView } from '../../compaction/branch-view.js';
import { ContentTokenMemo, estimateContentListTokens } from '../../compaction/token-estimate.js';
import { assembleView } from '../../compaction/view.js';
import { createEvent } from '../../events/event-helpers.js';
import type { NewEvent, Part } from '../../events/types.js';
import { InMemorySessionService } from '../../sessions/in-memory-session-service.js';
import type { SessionService } from '../../sessions/session-service.js';
import { SqliteSessionService } from '../../sessions/sqlite/sqlite-session-service.js';
import { OrphanCallRestorer } from '../view/restore-calls.js';
import { measureView } from './context-guard.js';

const folder = mkdtempSync(join(tmpdir(), 'orrery-view-token-memo-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

const key = { appName: 'app', userId: 'user', sessionId: 'memo' };

function text(author: string, role: 'user' | 'model', body: string, branch?: string): NewEvent {
  return createEvent({
    author,
    invocationId: `turn-${body.length}-${author}`,
    content: { role, parts: [{ text: body }] },
    ...(branch && { branch }),
  });
}

function toolTurn(index: number): NewEvent[] {
  const id = `call-${index}`;
  return [
    createEvent({
      author: 'agent',
      invocationId: `tool-${index}`,
      content: { role: 'model', parts: [{ functionCall: { id, name: 'fetch', args: { index } } }] },
    }),
    createEvent({
      author: 'agent',
      invocationId: `tool-${index}`,
      content: {
        role: 'user',
        parts: [
          {
            functionResponse: { id, name: 'fetch', response: { body: 'x'.repeat(4_000 + index) } },
          },
        ],
      },
    }),
  ];
}

const stores: [string, () => SessionService][] = [
  ['in memory', () => new InMemorySessionService()],
  ['SQLite', () => new SqliteSessionService({ path: join(folder, `${Math.random()}.db`) })],
];

describe.each(stores)('ContentTokenMemo on %s', (_name, createStore) => {
  it('equals the full recompute after appends, a compaction, an elision and a branch switch', async () => {
    const store = createStore();
    const memo = new ContentTokenMemo();
    const restorer = new OrphanCallRestorer({
      sessionService: store,
      memo: new ContentTokenMemo(),
    });
    const overhead = { tokens: 17, bytes: 0 };
    /** The view as the guard sees it, measured with the memo, with a running total, and without. */
    const check = async (scope?: { branch: string }) => {
      const stored = await store.loadView(key);
      const scoped = scope ? scopeView(stored, scope) : stored;
      const view = assembleView(scoped);
      const memoized = measureView(view, overhead, { bytes: false, memo });
      const full = measureView(view, overhead, { bytes: false });
      expect(memoized.tokens).toBe(full.tokens);
      expect(memoized.tokens).toBe(overhead.tokens + estimateContentListTokens(view.contents));
      // As the guard: one key per scope, and one key every scope shares (each switch rebuilds).
      for (const viewKey of [scope?.branch ?? 'trunk', 'shared']) {
        const extended = await restorer.assemble({ key, stored: scoped, viewKey });
        expect(extended).toEqual(view);
        const running = measureView(extended, overhead, {
          bytes: false,
          contentTokens: (contents) => restorer.contentTokens({ viewKey, contents }),
        });
        expect(running.tokens).toBe(full.tokens);
      }
      return memoized.tokens;
    };
    await store.createSession(key);
    const sizes: number[] = [];
    for (let index = 0; index < 6; index++) {
      await store.appendEvent({
        ...key,
        event: text('user', 'user', `question ${index} `.repeat(index + 1)),
      });
      for (const event of toolTurn(index)) await store.appendEvent({ ...key, event });
      await store.appendEvent({ ...key, event: text('agent', 'model', `answer ${index}`) });
      sizes.push(await check());
    }
    // Plain turns extend the view: the running total adds what is new, no pass over the view.
    const extender = (restorer as unknown as { extender: { memo: ContentTokenMemo } }).extender;
    const passes = vi.spyOn(extender.memo, 'listTokens');
    for (let index = 0; index < 3; index++) {
      await store.appendEvent({ ...key, event: text('user', 'user', `plain ${index}`) });
      await store.appendEvent({ ...key, event: text('user', 'user', `more ${index}`) });
      await store.appendEvent({ ...key, event: text('agent', 'model', `reply ${index} `) });
      sizes.push(await check());
    }
    expect(passes).not.toHaveBeenCalled();
    passes.mockRestore();
    // Appends: every turn adds to the estimate.
    expect(sizes).toEqual([...sizes].sort((left, right) => left - right));
    // A compaction: the summary replaces seqs 1-12.
    const compaction = await store.appendCompaction({
      ...key,
      event: createEvent({
        author: 'user',
        invocationId: 'compaction',
        actions: {
          compaction: {
            startSeq: 1,
            endSeq: 12,
            startTimestamp: 1,
            endTimestamp: 2,
            compactedContent: { role: 'model', parts: [{ text: 'The summary. '.repeat(30) }] },
            trigger: 'token_threshold',
            tokensBefore: 1,
            tokensAfter: 1,
            summarizer: 'test',
          },
        },
      }),
      expectedCheckpointSeq: null,
    });
    const afterCompaction = await check();
    expect(afterCompaction).toBeLessThan(sizes.at(-1)!);
    // An elision rule: the large tool outputs up to the compaction become placeholders.
    await store.appendEvent({
      ...key,
      event: createEvent({
        author: 'user',
        invocationId: 'elision',
        actions: {
          elision: {
            throughSeq: compaction.seq - 1,
            minOutputBytes: 100,
            trigger: 'token_threshold',
            tokensBefore: 1,
            tokensAfter: 1,
          },
        },
      }),
    });
    expect(await check()).toBeLessThan(afterCompaction);
    // Branches: two sub-agents' events, each branch's view, then back to the trunk's.
    await store.appendEvent({
      ...key,
      event: text('left', 'model', 'left work '.repeat(20), 'root.left'),
    });
    await store.appendEvent({ ...key, event: text('right', 'model', 'right work', 'root.right') });
    const left = await check({ branch: 'root.left' });
    const right = await check({ branch: 'root.right' });
    expect(left).toBeGreaterThan(right);
    await check();
    await check({ branch: 'root.left' });
    await store.close?.();
  });
});

it('scans a content it estimated before once, and a new or changed one again', () => {
  let reads = 0;
  const counted = (body: string): Part => ({
    get text() {
      reads++;
      return body;
    },
  });
  const memo = new ContentTokenMemo();
  const first = { role: 'user' as const, parts: [counted('hello there')] };
  const second = { role: 'model' as const, parts: [counted('general kenobi')] };
  const total = memo.listTokens([first, second]);
  expect(total).toBe(estimateContentListTokens([first, second]));
  const scanned = reads;
  // The same contents again (the next turn's view): no part read.
  expect(memo.listTokens([first, second])).toBe(total);
  expect(reads).toBe(scanned);
  // A merged content (a new parts array of the same parts): summed from the parts' memo.
  const merged = { role: 'user' as const, parts: [...first.parts, ...second.parts] };
  expect(memo.listTokens([merged])).toBe(estimateContentListTokens([merged]));
  const afterMerged = reads;
  memo.listTokens([merged]);
  expect(reads).toBe(afterMerged);
  // A new part (an elision placeholder, a truncation) is estimated.
  const replaced = { role: 'user' as const, parts: [counted('[tool output elided]')] };
  const before = reads;
  expect(memo.listTokens([replaced])).toBe(estimateContentListTokens([replaced]));
  expect(reads).toBeGreaterThan(before);
});
