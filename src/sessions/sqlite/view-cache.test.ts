/**
 * The SQLite store's view cache (view-cache.ts): every `loadView` of a cached instance returns
 * what a fresh instance (no cache) reads, while other instances on the same file append
 * events, compactions, elision rules, or delete and create the session again.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { NewEvent } from '../../events/types.js';
import { SqliteSessionService } from './sqlite-session-service.js';

const key = { appName: 'app', userId: 'user', sessionId: 'cached' };
let folder: string;
let cached: SqliteSessionService;
let other: SqliteSessionService;
let fresh: SqliteSessionService;

function textEvent(index: number, author = 'user'): NewEvent {
  return {
    id: `event-${index}`,
    invocationId: `invocation-${index}`,
    author,
    timestamp: 1_700_000_000 + index,
    content: { role: author === 'user' ? 'user' : 'model', parts: [{ text: `message ${index}` }] },
    actions: {},
  };
}

function compaction(index: number, endSeq: number): NewEvent {
  return {
    id: `compaction-${index}`,
    invocationId: `compaction-${index}`,
    author: 'user',
    timestamp: 1_700_000_000 + index,
    actions: {
      compaction: {
        startSeq: 1,
        endSeq,
        startTimestamp: 1_700_000_001,
        endTimestamp: 1_700_000_000 + endSeq,
        compactedContent: { role: 'model', parts: [{ text: `summary through ${endSeq}` }] },
        trigger: 'manual',
        tokensBefore: 100,
        tokensAfter: 10,
        summarizer: 'test',
      },
    },
  };
}

async function expectSameView(): Promise<void> {
  expect(await cached.loadView(key)).toEqual(await fresh.loadView(key));
}

beforeEach(async () => {
  folder = mkdtempSync(join(tmpdir(), 'orrery-view-cache-'));
  const path = join(folder, 'orrery.db');
  cached = new SqliteSessionService({ path });
  other = new SqliteSessionService({ path });
  fresh = new SqliteSessionService({ path, viewCache: { sessions: 0 } });
  await cached.createSession(key);
});

afterEach(async () => {
  vi.restoreAllMocks();
  await Promise.all([cached.close(), other.close(), fresh.close()]);
  rmSync(folder, { recursive: true, force: true });
});

describe('SQLite view cache', () => {
  it('returns the view a fresh read returns, as this and another instance append', async () => {
    let index = 0;
    for (let round = 0; round < 6; round++) {
      await cached.appendEvent({ ...key, event: textEvent(index++) });
      await expectSameView();
      await other.appendEvent({ ...key, event: textEvent(index++, 'agent') });
      await other.appendEvent({ ...key, event: textEvent(index++) });
      await expectSameView();
      await expectSameView();
    }
  });

  it('sees a compaction and an elision rule another instance appended', async () => {
    for (let index = 0; index < 8; index++) {
      await cached.appendEvent({ ...key, event: textEvent(index) });
    }
    await expectSameView();
    await other.appendCompaction({
      ...key,
      event: compaction(100, 5),
      expectedCheckpointSeq: null,
    });
    await expectSameView();
    expect((await cached.loadView(key)).checkpoint?.actions.compaction.endSeq).toBe(5);
    await other.appendEvent({
      ...key,
      event: {
        ...textEvent(101),
        content: undefined,
        actions: {
          elision: {
            throughSeq: 7,
            minOutputBytes: 10,
            trigger: 'token_threshold',
            tokensBefore: 10,
            tokensAfter: 5,
          },
        },
      },
    });
    await other.appendEvent({ ...key, event: textEvent(102) });
    await expectSameView();
  });

  it('reads a session deleted and created again anew, even at the same lastSeq', async () => {
    const clock = vi.spyOn(Date, 'now').mockReturnValue(1_800_000_000_000);
    for (let index = 0; index < 3; index++) {
      await cached.appendEvent({ ...key, event: textEvent(index) });
    }
    await expectSameView();
    clock.mockReturnValue(1_800_000_001_000);
    await other.deleteSession(key);
    await other.createSession(key);
    for (let index = 10; index < 13; index++) {
      await other.appendEvent({ ...key, event: textEvent(index) });
    }
    await expectSameView();
    expect((await cached.loadView(key)).tail.map((event) => event.id)).toEqual([
      'event-10',
      'event-11',
      'event-12',
    ]);
  });

  it('parses only the rows appended since its last read', async () => {
    for (let index = 0; index < 200; index++) {
      await cached.appendEvent({ ...key, event: textEvent(index) });
    }
    await cached.loadView(key);
    await other.appendEvent({ ...key, event: textEvent(200) });
    await other.appendEvent({ ...key, event: textEvent(201) });
    const parse = vi.spyOn(JSON, 'parse');
    const view = await cached.loadView(key);
    const rowsParsed = parse.mock.calls.filter(([text]) => String(text).includes('"event-')).length;
    expect(view.tail).toHaveLength(202);
    expect(rowsParsed).toBe(2);
    parse.mockClear();
    await cached.loadView(key);
    expect(parse.mock.calls.filter(([text]) => String(text).includes('"event-'))).toHaveLength(0);
  });

  it("keeps its own appends: the next read reads no row, and a caller's change to one is not kept", async () => {
    await cached.appendEvent({ ...key, event: textEvent(0) });
    await cached.loadView(key);
    const returned = await cached.appendEvent({ ...key, event: textEvent(1) });
    await cached.appendEvent({ ...key, event: textEvent(2) });
    returned.author = 'changed';
    const parse = vi.spyOn(JSON, 'parse');
    const view = await cached.loadView(key);
    expect(parse.mock.calls.filter(([text]) => String(text).includes('"event-'))).toHaveLength(0);
    parse.mockRestore();
    expect(view).toEqual(await fresh.loadView(key));
    expect(view.tail.map((event) => event.author)).toEqual(['user', 'user', 'user']);
    // Another instance's append between two of its own: the chain breaks, the read catches up.
    await other.appendEvent({ ...key, event: textEvent(3) });
    await cached.appendEvent({ ...key, event: textEvent(4) });
    await expectSameView();
  });

  it('hands out copies: changing a returned view changes no later one', async () => {
    await cached.appendEvent({ ...key, event: textEvent(0) });
    const first = await cached.loadView(key);
    first.tail.pop();
    expect((await cached.loadView(key)).tail).toHaveLength(1);
  });
});

describe('SQLite view cache behind getSession', () => {
  it("serves getSession's view events from the same cache, fresh after another instance appends", async () => {
    for (let index = 0; index < 4; index++) {
      await cached.appendEvent({ ...key, event: textEvent(index) });
    }
    await cached.getSession(key);
    await other.appendEvent({ ...key, event: textEvent(4) });
    const parse = vi.spyOn(JSON, 'parse');
    const session = await cached.getSession(key);
    const rowsParsed = parse.mock.calls.filter(([text]) => String(text).includes('"event-')).length;
    expect(rowsParsed).toBe(1);
    expect(session?.events).toEqual((await fresh.getSession(key))?.events);
  });
});
