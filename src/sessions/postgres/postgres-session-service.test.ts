import { afterAll, beforeAll, expect, it } from 'vitest';
import { InvalidEventError } from '../../events/errors.js';
import { compactionEvent, userTextEvent } from '../../testing/event-builders.js';
import {
  CompactionConflictError,
  SessionAlreadyExistsError,
  SessionNotFoundError,
  SessionStoreError,
} from '../errors.js';
import { PostgresSessionService } from './postgres-session-service.js';
import { describePostgres, useSchemaFixture } from './test-helpers/pg-test-env.js';

const app = 'app';
const user = 'alice';

describePostgres('PostgresSessionService', (url) => {
  const fixture = useSchemaFixture(url);
  let service: PostgresSessionService;

  beforeAll(() => {
    service = new PostgresSessionService({ pool: fixture.pool, schema: fixture.schema });
  });
  afterAll(async () => {
    await service.close();
  });

  async function sessionWith(count: number, sessionId?: string) {
    const session = await service.createSession({ appName: app, userId: user, sessionId });
    for (let index = 1; index <= count; index++) {
      await service.appendEvent({
        ...key(session.sessionId),
        event: userTextEvent({ text: `m${index}` }),
      });
    }
    return session.sessionId;
  }

  function key(sessionId: string) {
    return { appName: app, userId: user, sessionId };
  }

  it('creates, reads, lists and deletes sessions', async () => {
    const created = await service.createSession({
      appName: app,
      userId: 'bob',
      sessionId: 's1',
      state: { topic: 'disk' },
    });
    expect(created).toMatchObject({ sessionId: 's1', state: { topic: 'disk' }, events: [] });
    const generated = await service.createSession({ appName: app, userId: 'bob' });
    expect(generated.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    const read = await service.getSession({ appName: app, userId: 'bob', sessionId: 's1' });
    expect(read?.state).toEqual({ topic: 'disk' });
    const listed = await service.listSessions({ appName: app, userId: 'bob' });
    expect(listed.map((entry) => entry.sessionId).sort()).toEqual(
      ['s1', generated.sessionId].sort(),
    );
    await service.deleteSession({ appName: app, userId: 'bob', sessionId: 's1' });
    expect(await service.getSession({ appName: app, userId: 'bob', sessionId: 's1' })).toBe(
      undefined,
    );
    await service.deleteSession({ appName: app, userId: 'bob', sessionId: 's1' }); // no-op
  });

  it('rejects a duplicate session id and leaves the first session as it was', async () => {
    await service.createSession({ ...key('dup'), state: { n: 1 } });
    const error = await service
      .createSession({ ...key('dup'), state: { n: 2 } })
      .catch((caught: unknown) => caught);
    expect(SessionAlreadyExistsError.isInstance(error)).toBe(true);
    expect(SessionStoreError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain("'dup'");
    expect((await service.getSession(key('dup')))?.state).toEqual({ n: 1 });
  });

  it('assigns seq 1..n and applies session, app and user state deltas', async () => {
    const sessionId = await sessionWith(0, 'state');
    const first = await service.appendEvent({
      ...key(sessionId),
      event: {
        ...userTextEvent({ text: 'hi' }),
        actions: {
          stateDelta: { step: 1, 'app:theme': 'dark', 'user:name': 'Alice', 'temp:scratch': 9 },
        },
      },
    });
    expect(first.seq).toBe(1);
    expect(first.actions.stateDelta).toEqual({
      step: 1,
      'app:theme': 'dark',
      'user:name': 'Alice',
    });
    const second = await service.appendEvent({
      ...key(sessionId),
      event: { ...userTextEvent({ text: 'again' }), actions: { stateDelta: { step: 2 } } },
    });
    expect(second.seq).toBe(2);
    const session = await service.getSession(key(sessionId));
    expect(session?.state).toEqual({ step: 2, 'app:theme': 'dark', 'user:name': 'Alice' });
    expect(session?.events.map((event) => event.seq)).toEqual([1, 2]);
    // app: is shared by every user of the app, user: by every session of that user only.
    const sibling = await service.createSession({ appName: app, userId: user });
    expect(sibling.state).toEqual({ 'app:theme': 'dark', 'user:name': 'Alice' });
    const other = await service.createSession({ appName: app, userId: 'carol' });
    expect(other.state).toEqual({ 'app:theme': 'dark' });
    const stored = await service.listEvents(key(sessionId));
    expect(stored.events[0]?.actions.stateDelta).not.toHaveProperty('temp:scratch');
  });

  it('scopes every operation by app and user', async () => {
    const sessionId = await sessionWith(2, 'scoped');
    for (const wrong of [
      { appName: 'other-app', userId: user, sessionId },
      { appName: app, userId: 'mallory', sessionId },
    ]) {
      expect(await service.getSession(wrong)).toBe(undefined);
      await expect(service.loadView(wrong)).rejects.toSatisfy(SessionNotFoundError.isInstance);
      await expect(service.listEvents(wrong)).rejects.toSatisfy(SessionNotFoundError.isInstance);
      await expect(
        service.appendEvent({ ...wrong, event: userTextEvent({ text: 'x' }) }),
      ).rejects.toSatisfy(SessionNotFoundError.isInstance);
      await expect(
        service.appendCompaction({
          ...wrong,
          event: compactionEvent({ startSeq: 1, endSeq: 1 }),
          expectedCheckpointSeq: null,
        }),
      ).rejects.toSatisfy(SessionNotFoundError.isInstance);
      await service.deleteSession(wrong);
      expect(await service.listSessions(wrong)).toEqual([]);
    }
    expect((await service.getSession({ ...key(sessionId), events: 'full' }))?.events).toHaveLength(
      2,
    );
  });

  it('loads the view as checkpoint + tail and the full history on request', async () => {
    const sessionId = await sessionWith(5, 'view');
    const first = await service.appendCompaction({
      ...key(sessionId),
      event: compactionEvent({ startSeq: 1, endSeq: 3, text: 'A' }),
      expectedCheckpointSeq: null,
    });
    expect(first.seq).toBe(6);
    await service.appendEvent({ ...key(sessionId), event: userTextEvent({ text: 'm7' }) });
    let view = await service.loadView(key(sessionId));
    expect(view.checkpoint?.seq).toBe(6);
    expect(view.tail.map((event) => event.seq)).toEqual([4, 5, 7]);
    expect(view.lastSeq).toBe(7);

    const second = await service.appendCompaction({
      ...key(sessionId),
      event: compactionEvent({ startSeq: 1, endSeq: 5, text: 'B' }),
      expectedCheckpointSeq: 6,
    });
    view = await service.loadView(key(sessionId));
    expect(view.checkpoint?.seq).toBe(second.seq);
    expect(view.checkpoint?.actions.compaction.compactedContent.parts[0]?.text).toBe('B');
    expect(view.tail.map((event) => event.seq)).toEqual([7]);

    const session = await service.getSession(key(sessionId));
    expect(session?.events.map((event) => event.seq)).toEqual([8, 7]);
    const full = await service.getSession({ ...key(sessionId), events: 'full' });
    expect(full?.events.map((event) => event.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });

  it('picks the largest endSeq, then the later seq, and ignores invalid ranges', async () => {
    const sessionId = await sessionWith(4, 'ties');
    await service.appendCompaction({
      ...key(sessionId),
      event: compactionEvent({ startSeq: 1, endSeq: 2, text: 'first' }),
      expectedCheckpointSeq: null,
    });
    await service.appendCompaction({
      ...key(sessionId),
      event: compactionEvent({ startSeq: 1, endSeq: 2, text: 'second' }),
      expectedCheckpointSeq: 5,
    });
    let view = await service.loadView(key(sessionId));
    expect(view.checkpoint?.seq).toBe(6);
    // A row whose range is not startSeq <= endSeq < seq (imported or damaged) is never a checkpoint.
    await fixture.pool.query(
      `UPDATE "${fixture.schema}".orrery_events SET compaction_start_seq = 9, compaction_end_seq = 9,
         event = jsonb_set(jsonb_set(event::jsonb, '{actions,compaction,startSeq}', '9'), '{actions,compaction,endSeq}', '9')
       WHERE session_id = $1 AND seq = 6`,
      [sessionId],
    );
    // Read by an instance that has not cached this session: rows are append-only, so a
    // store's view cache (view-cache.ts) never re-reads one it holds, and SQL that rewrites a
    // stored row behind the store is seen by readers that did not hold it.
    const reader = new PostgresSessionService({ pool: fixture.pool, schema: fixture.schema });
    view = await reader.loadView(key(sessionId));
    expect(view.checkpoint?.seq).toBe(5);
    expect(view.tail.map((event) => event.seq)).toEqual([3, 4]);
  });

  it('shares a passed pool among many stores without a listener-leak warning', async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    const limit = fixture.pool.getMaxListeners();
    const stores = Array.from(
      { length: limit + 5 },
      () => new PostgresSessionService({ pool: fixture.pool, schema: fixture.schema }),
    );
    try {
      for (const store of stores) await store.listSessions({ appName: app, userId: user });
      // Node emits the warning on the next tick after the listener that crossed the limit.
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings.filter((warning) => warning.name === 'MaxListenersExceededWarning')).toEqual(
        [],
      );
    } finally {
      for (const store of stores) await store.close();
      process.off('warning', onWarning);
    }
    expect(fixture.pool.getMaxListeners()).toBe(limit);
  });

  it('rejects a stale compaction with CompactionConflictError and stores nothing', async () => {
    const sessionId = await sessionWith(4, 'conflict');
    await service.appendCompaction({
      ...key(sessionId),
      event: compactionEvent({ startSeq: 1, endSeq: 2 }),
      expectedCheckpointSeq: null,
    });
    const error = await service
      .appendCompaction({
        ...key(sessionId),
        event: compactionEvent({ startSeq: 1, endSeq: 3 }),
        expectedCheckpointSeq: null,
      })
      .catch((caught: unknown) => caught);
    expect(CompactionConflictError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ expectedCheckpointSeq: null, actualCheckpointSeq: 5 });
    const page = await service.listEvents(key(sessionId));
    expect(page.events.map((event) => event.seq)).toEqual([1, 2, 3, 4, 5]);
    const next = await service.appendEvent({
      ...key(sessionId),
      event: userTextEvent({ text: 'after' }),
    });
    expect(next.seq).toBe(6); // no seq was consumed by the rejected compaction
  });

  it('rejects malformed events and compactions naming the field', async () => {
    const sessionId = await sessionWith(2, 'invalid');
    const cases: Array<[() => Promise<unknown>, string]> = [
      [
        () =>
          service.appendCompaction({
            ...key(sessionId),
            event: compactionEvent({ startSeq: 1, endSeq: 3 }),
            expectedCheckpointSeq: null,
          }),
        'event.actions.compaction.endSeq',
      ],
      [
        () =>
          service.appendCompaction({
            ...key(sessionId),
            event: compactionEvent({ startSeq: 2, endSeq: 1 }),
            expectedCheckpointSeq: null,
          }),
        'event.actions.compaction.startSeq',
      ],
      [
        () =>
          service.appendCompaction({
            ...key(sessionId),
            event: userTextEvent({ text: 'not a compaction' }),
            expectedCheckpointSeq: null,
          }),
        'event.actions.compaction',
      ],
      [
        () =>
          service.appendEvent({
            ...key(sessionId),
            event: compactionEvent({ startSeq: 1, endSeq: 1 }),
          }),
        'event.actions.compaction',
      ],
      [
        () =>
          service.appendEvent({
            ...key(sessionId),
            event: { ...userTextEvent({ text: 'x' }), timestamp: Number.NaN },
          }),
        'event.timestamp',
      ],
    ];
    for (const [attempt, path] of cases) {
      const error = await attempt().catch((caught: unknown) => caught);
      expect(InvalidEventError.isInstance(error)).toBe(true);
      expect((error as InvalidEventError).path).toBe(path);
    }
    expect((await service.loadView(key(sessionId))).lastSeq).toBe(2);
  });

  it('pages the full history in both directions', async () => {
    const sessionId = await sessionWith(7, 'pages');
    const ascending: number[] = [];
    let cursor: number | undefined;
    do {
      const page = await service.listEvents({ ...key(sessionId), limit: 3, afterSeq: cursor });
      ascending.push(...page.events.map((event) => event.seq));
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    expect(ascending).toEqual([1, 2, 3, 4, 5, 6, 7]);
    const descending: number[] = [];
    cursor = undefined;
    do {
      const page = await service.listEvents({
        ...key(sessionId),
        limit: 3,
        order: 'desc',
        beforeSeq: cursor,
      });
      descending.push(...page.events.map((event) => event.seq));
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    expect(descending).toEqual([7, 6, 5, 4, 3, 2, 1]);
    const window = await service.listEvents({ ...key(sessionId), afterSeq: 2, beforeSeq: 5 });
    expect(window.events.map((event) => event.seq)).toEqual([3, 4]);
    expect(window.nextCursor).toBe(undefined);
  });

  it('round-trips the event JSON and reports event counts', async () => {
    const sessionId = await sessionWith(0, 'json');
    const event = {
      ...userTextEvent({ text: 'ünïcode ✓' }),
      branch: 'root.sub',
      usageMetadata: { promptTokenCount: 12, totalTokenCount: 20 },
      longRunningToolIds: ['call-1'],
      customMetadata: { nested: { list: [1, 2.5, null, 'x'] } },
    };
    const stored = await service.appendEvent({ ...key(sessionId), event });
    const [read] = (await service.listEvents(key(sessionId))).events;
    expect(read).toEqual({ ...event, seq: 1 });
    expect(stored).toEqual(read);
    const summary = (await service.listSessions({ appName: app, userId: user })).find(
      (entry) => entry.sessionId === sessionId,
    );
    expect(summary?.eventCount).toBe(1);
    expect(summary?.lastUpdateTime).toBeGreaterThan(Date.now() / 1000 - 60);
  });
});
