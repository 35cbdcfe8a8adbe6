/**
 * The SessionService contract as a vitest suite (SPEC §9). Every store orrery ships runs it,
 * and users run it against their own stores:
 *
 *   runSessionServiceConformance({ name: 'my store', createService: async () => new MyStore() });
 *
 * Each test creates a fresh service and works in its own random app name, so a shared database
 * is fine. Contract points that are a choice, written down here:
 * - `seq` starts at 1 in each session and grows by one per append (gapless within a session).
 *   A deleted and recreated session is a new session: its `seq` starts at 1 again.
 * - A duplicate `sessionId` is a `SessionAlreadyExistsError` (a `SessionStoreError`).
 * - `appendCompaction` rejects malformed ranges (`InvalidEventError`): `1 <= startSeq <= endSeq <
 *   seq`. Stores ignore malformed ranges already in storage (imports, legacy rows) in the view.
 * - ADK state prefixes: `temp:` keys are never stored (neither in state nor in the stored
 *   event's `stateDelta`), `user:` keys are shared by the user's sessions in the app, `app:`
 *   keys by every session of the app.
 * - Another app or user sees no session: `getSession` gives `undefined`, the others throw
 *   `SessionNotFoundError`, `deleteSession` is a no-op and removes nothing.
 * - Events are JSON: what a read returns deep-equals (strictly) what `appendEvent` returned,
 *   and equals the appended event with `undefined` properties left out. A value JSON cannot
 *   hold (NaN, Infinity, bigint, Date, Map, a cycle, `undefined` in an array, nesting deeper
 *   than `MAX_JSON_DEPTH`) is an `InvalidEventError` naming its path; nothing is stored. Any
 *   string, NUL characters and lone surrogates included, is stored as it is.
 * - State deltas replace top-level keys (no deep merge); `null` is a value, not a deletion
 *   (ADK for Python does the same: `state.update(delta)`).
 * - Keys (`appName`, `userId`, `sessionId`) are non-empty, at most `MAX_KEY_BYTES` UTF-8 bytes,
 *   without NUL; anything else is an `InvalidArgumentError` naming the field. Quotes and SQL
 *   wildcards are ordinary characters.
 * - `listEvents`: `limit` is an integer >= 1 and cursors are integers, else
 *   `InvalidArgumentError` naming the option; a cursor past either end selects nothing.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InvalidArgumentError, InvalidEventError } from '../events/errors.js';
import { MAX_JSON_DEPTH } from '../events/json-value.js';
import type { Event, NewEvent, SessionKey } from '../events/types.js';
import {
  CompactionConflictError,
  SessionAlreadyExistsError,
  SessionNotFoundError,
} from '../sessions/errors.js';
import type { SessionService } from '../sessions/session-service.js';
import { MAX_KEY_BYTES } from '../sessions/store-helpers.js';
import {
  compactionEvent,
  type EventFields,
  functionCallEvent,
  userTextEvent,
} from './event-builders.js';

export interface SessionServiceConformanceOptions {
  /** Shown in the describe block. */
  name: string;
  /** A fresh (or at least isolated) service for each test. */
  createService: () => Promise<SessionService>;
  /** Runs after each test, after `service.close()`: drop files, databases, pools. */
  cleanup?: (service: SessionService) => Promise<void>;
}

let counter = 0;

/** Fresh ids and slowly growing timestamps, so events of one suite run never collide. */
function fields(): EventFields {
  counter++;
  return {
    id: `event-${randomUUID()}`,
    invocationId: `invocation-${counter}`,
    timestamp: 1_700_000_000 + counter / 1000,
  };
}

/** Small event builders for the suite (plain data, no store involved). */
const make = {
  message(text: string): NewEvent {
    return userTextEvent({ ...fields(), text });
  },
  withState(stateDelta: Record<string, unknown>): NewEvent {
    return userTextEvent({ ...fields(), text: 'state change', actions: { stateDelta } });
  },
  functionCall(id: string, name: string, args: Record<string, unknown>): NewEvent {
    return functionCallEvent({ ...fields(), calls: [{ id, name, args }] });
  },
  compaction(options: { startSeq: number; endSeq: number; text?: string }): NewEvent {
    return compactionEvent({
      ...fields(),
      ...options,
      startTimestamp: 1_700_000_000,
      endTimestamp: 1_700_000_001,
      tokensBefore: 100,
      tokensAfter: 10,
      summarizer: 'conformance',
    });
  },
};

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to reject, it resolved');
}

export function runSessionServiceConformance(options: SessionServiceConformanceOptions): void {
  describe(`SessionService conformance: ${options.name}`, () => {
    let service: SessionService;
    let appName: string;
    const userId = 'user-1';

    beforeEach(async () => {
      service = await options.createService();
      appName = `conformance-${randomUUID()}`;
    });

    afterEach(async () => {
      await service.close?.();
      await options.cleanup?.(service);
    });

    async function newSession(sessionId?: string): Promise<SessionKey> {
      const session = await service.createSession({ appName, userId, sessionId });
      return { appName, userId, sessionId: session.sessionId };
    }

    async function appendMany(key: SessionKey, count: number): Promise<Event[]> {
      const stored: Event[] = [];
      for (let index = 0; index < count; index++) {
        stored.push(await service.appendEvent({ ...key, event: make.message(`m${index}`) }));
      }
      return stored;
    }

    async function listAll(key: SessionKey): Promise<Event[]> {
      return (await service.getSession({ ...key, events: 'full' }))?.events ?? [];
    }

    describe('createSession and getSession', () => {
      it('generates a session id when none is given', async () => {
        const first = await service.createSession({ appName, userId });
        const second = await service.createSession({ appName, userId });
        expect(first.sessionId).toMatch(/\S/);
        expect(second.sessionId).not.toBe(first.sessionId);
        expect(first).toMatchObject({ appName, userId, events: [] });
        expect(typeof first.lastUpdateTime).toBe('number');
      });

      it('keeps a given session id and initial state', async () => {
        const created = await service.createSession({
          appName,
          userId,
          sessionId: 'given-id',
          state: { topic: 'billing', nested: { depth: 1 } },
        });
        expect(created.sessionId).toBe('given-id');
        const loaded = await service.getSession({ appName, userId, sessionId: 'given-id' });
        expect(loaded?.state).toEqual({ topic: 'billing', nested: { depth: 1 } });
        expect(loaded?.events).toEqual([]);
      });

      it('rejects a duplicate session id with SessionAlreadyExistsError', async () => {
        await newSession('dup');
        await service.appendEvent({
          appName,
          userId,
          sessionId: 'dup',
          event: make.message('kept'),
        });
        const error = await rejection(service.createSession({ appName, userId, sessionId: 'dup' }));
        expect(SessionAlreadyExistsError.isInstance(error)).toBe(true);
        expect(String((error as Error).message)).toContain('dup');
        expect(await listAll({ appName, userId, sessionId: 'dup' })).toHaveLength(1);
      });

      it('gives undefined for a missing session', async () => {
        expect(await service.getSession({ appName, userId, sessionId: 'nope' })).toBeUndefined();
      });

      it('loads the active view by default and the full history on request', async () => {
        const key = await newSession();
        await appendMany(key, 4);
        await service.appendCompaction({
          ...key,
          event: make.compaction({ startSeq: 1, endSeq: 2 }),
          expectedCheckpointSeq: null,
        });
        await appendMany(key, 1);
        const view = await service.getSession(key);
        expect(view?.events.map((event) => event.seq)).toEqual([5, 3, 4, 6]);
        const full = await service.getSession({ ...key, events: 'full' });
        expect(full?.events.map((event) => event.seq)).toEqual([1, 2, 3, 4, 5, 6]);
      });
    });

    describe('appendEvent', () => {
      it('assigns seq from 1, strictly increasing and gapless', async () => {
        const key = await newSession();
        const stored = await appendMany(key, 5);
        expect(stored.map((event) => event.seq)).toEqual([1, 2, 3, 4, 5]);
        expect((await listAll(key)).map((event) => event.seq)).toEqual([1, 2, 3, 4, 5]);
      });

      it('numbers each session on its own', async () => {
        const first = await newSession();
        const second = await newSession();
        await appendMany(first, 3);
        const [event] = await appendMany(second, 1);
        expect(event?.seq).toBe(1);
      });

      it('ignores a seq given by the caller', async () => {
        const key = await newSession();
        await appendMany(key, 2);
        const event = { ...make.message('with seq'), seq: 1 } as NewEvent;
        const stored = await service.appendEvent({ ...key, event });
        expect(stored.seq).toBe(3);
      });

      it('assigns unique gapless seqs to concurrent appends', async () => {
        const key = await newSession();
        const stored = await Promise.all(
          Array.from({ length: 40 }, (_, index) =>
            service.appendEvent({ ...key, event: make.message(`c${index}`) }),
          ),
        );
        const seqs = stored.map((event) => event.seq).sort((a, b) => a - b);
        expect(seqs).toEqual(Array.from({ length: 40 }, (_, index) => index + 1));
        expect(await listAll(key)).toHaveLength(40);
      });

      it('round-trips every event field', async () => {
        const key = await newSession();
        const event: NewEvent = {
          ...make.functionCall('call-1', 'search', { query: 'ünïcode ✓', limit: 3 }),
          branch: 'root.child',
          usageMetadata: { promptTokenCount: 120, candidatesTokenCount: 7, totalTokenCount: 127 },
          longRunningToolIds: ['call-1'],
          customMetadata: { source: 'test', list: [1, 2, null] },
          turnComplete: true,
        };
        const stored = await service.appendEvent({ ...key, event });
        expect(stored).toEqual({ ...event, seq: 1 });
        expect((await listAll(key))[0]).toEqual({ ...event, seq: 1 });
      });

      it('applies stateDelta to the session state', async () => {
        const key = await newSession();
        await service.appendEvent({ ...key, event: make.withState({ step: 1, keep: 'a' }) });
        await service.appendEvent({ ...key, event: make.withState({ step: 2 }) });
        const session = await service.getSession(key);
        expect(session?.state).toEqual({ step: 2, keep: 'a' });
      });

      it('never stores temp: state, in the state or in the stored event', async () => {
        const key = await newSession();
        const stored = await service.appendEvent({
          ...key,
          event: make.withState({ 'temp:scratch': 'x', kept: true }),
        });
        expect(stored.actions.stateDelta).toEqual({ kept: true });
        const session = await service.getSession({ ...key, events: 'full' });
        expect(session?.state).toEqual({ kept: true });
        expect(session?.events[0]?.actions.stateDelta).toEqual({ kept: true });
      });

      it('shares user: state across the user and app: state across the app', async () => {
        const first = await newSession();
        await service.appendEvent({
          ...first,
          event: make.withState({ 'user:language': 'fr', 'app:version': 2, own: 1 }),
        });
        const second = await newSession();
        const other = await service.createSession({ appName, userId: 'user-2' });
        const secondState = (await service.getSession(second))?.state;
        expect(secondState).toEqual({ 'user:language': 'fr', 'app:version': 2 });
        const otherState = (
          await service.getSession({ appName, userId: 'user-2', sessionId: other.sessionId })
        )?.state;
        expect(otherState).toEqual({ 'app:version': 2 });
        expect((await service.getSession(first))?.state).toEqual({
          'user:language': 'fr',
          'app:version': 2,
          own: 1,
        });
      });

      it('updates lastUpdateTime on append', async () => {
        const created = await service.createSession({ appName, userId });
        const key = { appName, userId, sessionId: created.sessionId };
        await new Promise((resolve) => setTimeout(resolve, 15));
        await appendMany(key, 1);
        const session = await service.getSession(key);
        expect(session!.lastUpdateTime).toBeGreaterThan(created.lastUpdateTime);
      });

      it('throws SessionNotFoundError for a missing session', async () => {
        const error = await rejection(
          service.appendEvent({ appName, userId, sessionId: 'missing', event: make.message('x') }),
        );
        expect(SessionNotFoundError.isInstance(error)).toBe(true);
      });

      it.each([
        ['no id', (event: NewEvent) => ({ ...event, id: '' }), 'event.id'],
        ['no author', (event: NewEvent) => ({ ...event, author: undefined }), 'event.author'],
        [
          'bad timestamp',
          (event: NewEvent) => ({ ...event, timestamp: Number.NaN }),
          'event.timestamp',
        ],
        ['no actions', (event: NewEvent) => ({ ...event, actions: undefined }), 'event.actions'],
        [
          'bad role',
          (event: NewEvent) => ({ ...event, content: { role: 'system', parts: [] } }),
          'event.content.role',
        ],
      ])(
        'rejects an invalid event (%s) with InvalidEventError and stores nothing',
        async (_, mutate, path) => {
          const key = await newSession();
          const event = mutate(make.message('bad')) as unknown as NewEvent;
          const error = await rejection(service.appendEvent({ ...key, event }));
          expect(InvalidEventError.isInstance(error)).toBe(true);
          expect((error as InvalidEventError).path).toBe(path);
          expect(await listAll(key)).toEqual([]);
          expect((await appendMany(key, 1))[0]?.seq).toBe(1);
        },
      );

      it('rejects a compaction event (use appendCompaction)', async () => {
        const key = await newSession();
        await appendMany(key, 2);
        const error = await rejection(
          service.appendEvent({ ...key, event: make.compaction({ startSeq: 1, endSeq: 2 }) }),
        );
        expect(InvalidEventError.isInstance(error)).toBe(true);
        expect((error as InvalidEventError).path).toBe('event.actions.compaction');
        expect(await listAll(key)).toHaveLength(2);
      });

      it('rejects an already aborted signal and stores nothing', async () => {
        const key = await newSession();
        const controller = new AbortController();
        controller.abort();
        await expect(
          service.appendEvent({ ...key, event: make.message('x'), signal: controller.signal }),
        ).rejects.toThrow();
        expect(await listAll(key)).toEqual([]);
      });
    });

    describe('copies on read and write', () => {
      it('does not store later changes to the input event', async () => {
        const key = await newSession();
        const event = make.message('original');
        await service.appendEvent({ ...key, event });
        event.content!.parts[0]!.text = 'changed';
        event.author = 'someone-else';
        const [stored] = await listAll(key);
        expect(stored?.content?.parts[0]?.text).toBe('original');
        expect(stored?.author).toBe('user');
      });

      it('does not store changes made to returned events or state', async () => {
        const key = await newSession();
        const returned = await service.appendEvent({ ...key, event: make.withState({ a: 1 }) });
        returned.content!.parts[0]!.text = 'changed';
        const loaded = await service.getSession(key);
        loaded!.events[0]!.content!.parts[0]!.text = 'changed again';
        loaded!.state.a = 99;
        const view = await service.loadView(key);
        view.tail[0]!.actions.stateDelta = { a: 100 };
        const page = await service.listEvents(key);
        page.events[0]!.author = 'mutant';
        const again = await service.getSession({ ...key, events: 'full' });
        expect(again?.events[0]?.content?.parts[0]?.text).toBe('state change');
        expect(again?.events[0]?.actions.stateDelta).toEqual({ a: 1 });
        expect(again?.events[0]?.author).toBe('user');
        expect(again?.state).toEqual({ a: 1 });
      });
    });

    describe('loadView', () => {
      it('is every event when there is no compaction', async () => {
        const key = await newSession();
        await appendMany(key, 3);
        const view = await service.loadView(key);
        expect(view.checkpoint).toBeUndefined();
        expect(view.tail.map((event) => event.seq)).toEqual([1, 2, 3]);
        expect(view.lastSeq).toBe(3);
      });

      it('is empty with lastSeq 0 for an empty session', async () => {
        const key = await newSession();
        expect(await service.loadView(key)).toEqual({
          checkpoint: undefined,
          tail: [],
          lastSeq: 0,
        });
      });

      it('is the checkpoint plus the events after its endSeq', async () => {
        const key = await newSession();
        await appendMany(key, 5);
        const compaction = await service.appendCompaction({
          ...key,
          event: make.compaction({ startSeq: 1, endSeq: 3 }),
          expectedCheckpointSeq: null,
        });
        await appendMany(key, 2);
        const view = await service.loadView(key);
        expect(view.checkpoint).toEqual(compaction);
        expect(view.tail.map((event) => event.seq)).toEqual([4, 5, 7, 8]);
        expect(view.lastSeq).toBe(8);
      });

      it('keeps events appended before a late compaction visible (ranges by seq)', async () => {
        const key = await newSession();
        await appendMany(key, 3);
        // Planned when the session held 3 events; 2 more arrived before it was written.
        const early = make.compaction({ startSeq: 1, endSeq: 3 });
        await appendMany(key, 2);
        const stored = await service.appendCompaction({
          ...key,
          event: early,
          expectedCheckpointSeq: null,
        });
        expect(stored.seq).toBe(6);
        const view = await service.loadView(key);
        expect(view.checkpoint?.seq).toBe(6);
        expect(view.tail.map((event) => event.seq)).toEqual([4, 5]);
      });

      it('picks the largest endSeq, ties to the later seq, and hides superseded summaries', async () => {
        const key = await newSession();
        await appendMany(key, 6);
        const first = await service.appendCompaction({
          ...key,
          event: make.compaction({ startSeq: 1, endSeq: 5, text: 'A' }),
          expectedCheckpointSeq: null,
        });
        // A stale-looking compaction that covers less: stored, but not the checkpoint.
        const smaller = await service.appendCompaction({
          ...key,
          event: make.compaction({ startSeq: 1, endSeq: 3, text: 'B' }),
          expectedCheckpointSeq: first.seq,
        });
        let view = await service.loadView(key);
        expect(view.checkpoint?.seq).toBe(first.seq);
        expect(view.tail.map((event) => event.seq)).toEqual([6]);
        expect(smaller.seq).toBe(8);
        const tie = await service.appendCompaction({
          ...key,
          event: make.compaction({ startSeq: 1, endSeq: 5, text: 'C' }),
          expectedCheckpointSeq: first.seq,
        });
        view = await service.loadView(key);
        expect(view.checkpoint?.seq).toBe(tie.seq);
        expect(view.checkpoint?.actions.compaction.compactedContent.parts[0]?.text).toBe('C');
        expect(view.tail.map((event) => event.seq)).toEqual([6]);
        await appendMany(key, 1);
        const rolling = await service.appendCompaction({
          ...key,
          event: make.compaction({ startSeq: 1, endSeq: 10, text: 'D' }),
          expectedCheckpointSeq: tie.seq,
        });
        view = await service.loadView(key);
        expect(view.checkpoint?.seq).toBe(rolling.seq);
        expect(view.tail).toEqual([]);
        expect(view.lastSeq).toBe(rolling.seq);
      });
    });

    describe('appendCompaction', () => {
      it('succeeds when expectedCheckpointSeq matches, conflicts when stale', async () => {
        const key = await newSession();
        await appendMany(key, 4);
        const first = await service.appendCompaction({
          ...key,
          event: make.compaction({ startSeq: 1, endSeq: 2 }),
          expectedCheckpointSeq: null,
        });
        expect(first.seq).toBe(5);
        expect(first.actions.compaction.endSeq).toBe(2);
        const staleNull = await rejection(
          service.appendCompaction({
            ...key,
            event: make.compaction({ startSeq: 1, endSeq: 4 }),
            expectedCheckpointSeq: null,
          }),
        );
        expect(CompactionConflictError.isInstance(staleNull)).toBe(true);
        expect(staleNull).toMatchObject({ expectedCheckpointSeq: null, actualCheckpointSeq: 5 });
        const wrong = await rejection(
          service.appendCompaction({
            ...key,
            event: make.compaction({ startSeq: 1, endSeq: 4 }),
            expectedCheckpointSeq: 3,
          }),
        );
        expect(CompactionConflictError.isInstance(wrong)).toBe(true);
        expect(await listAll(key)).toHaveLength(5);
        const second = await service.appendCompaction({
          ...key,
          event: make.compaction({ startSeq: 1, endSeq: 4 }),
          expectedCheckpointSeq: 5,
        });
        expect(second.seq).toBe(6);
      });

      it('lets exactly one of several concurrent compactions of one window win', async () => {
        const key = await newSession();
        await appendMany(key, 6);
        const results = await Promise.allSettled(
          Array.from({ length: 6 }, (_, index) =>
            service.appendCompaction({
              ...key,
              event: make.compaction({ startSeq: 1, endSeq: 4, text: `racer ${index}` }),
              expectedCheckpointSeq: null,
            }),
          ),
        );
        const won = results.filter((result) => result.status === 'fulfilled');
        const lost = results.filter((result) => result.status === 'rejected');
        expect(won).toHaveLength(1);
        for (const result of lost) {
          expect(CompactionConflictError.isInstance((result as PromiseRejectedResult).reason)).toBe(
            true,
          );
        }
        const compactions = (await listAll(key)).filter((event) => event.actions.compaction);
        expect(compactions).toHaveLength(1);
      });

      it('rejects a non-compaction event and stores nothing', async () => {
        const key = await newSession();
        await appendMany(key, 2);
        const error = await rejection(
          service.appendCompaction({
            ...key,
            event: make.message('x'),
            expectedCheckpointSeq: null,
          }),
        );
        expect(InvalidEventError.isInstance(error)).toBe(true);
        expect((error as InvalidEventError).path).toBe('event.actions.compaction');
        expect(await listAll(key)).toHaveLength(2);
      });

      it.each([
        ['start after end', { startSeq: 3, endSeq: 2 }, 'event.actions.compaction.startSeq'],
        ['start below 1', { startSeq: 0, endSeq: 2 }, 'event.actions.compaction.startSeq'],
        [
          'end beyond the stored events',
          { startSeq: 1, endSeq: 3 },
          'event.actions.compaction.endSeq',
        ],
        ['fractional end', { startSeq: 1, endSeq: 1.5 }, 'event.actions.compaction.endSeq'],
      ])('rejects a malformed range (%s) and stores nothing', async (_, range, path) => {
        const key = await newSession();
        await appendMany(key, 2);
        const error = await rejection(
          service.appendCompaction({
            ...key,
            event: make.compaction(range),
            expectedCheckpointSeq: null,
          }),
        );
        expect(InvalidEventError.isInstance(error)).toBe(true);
        expect((error as InvalidEventError).path).toBe(path);
        expect(await listAll(key)).toHaveLength(2);
        expect((await appendMany(key, 1))[0]?.seq).toBe(3);
      });

      it('rejects a compaction with content', async () => {
        const key = await newSession();
        await appendMany(key, 2);
        const event = {
          ...make.compaction({ startSeq: 1, endSeq: 2 }),
          content: make.message('x').content,
        };
        const error = await rejection(
          service.appendCompaction({ ...key, event, expectedCheckpointSeq: null }),
        );
        expect(InvalidEventError.isInstance(error)).toBe(true);
      });

      it('throws SessionNotFoundError for a missing session', async () => {
        const error = await rejection(
          service.appendCompaction({
            appName,
            userId,
            sessionId: 'missing',
            event: make.compaction({ startSeq: 1, endSeq: 1 }),
            expectedCheckpointSeq: null,
          }),
        );
        expect(SessionNotFoundError.isInstance(error)).toBe(true);
      });
    });

    describe('listEvents', () => {
      it('pages forward with cursors and ends without one', async () => {
        const key = await newSession();
        await appendMany(key, 7);
        const seen: number[] = [];
        let cursor: number | undefined;
        let pages = 0;
        do {
          const page = await service.listEvents({ ...key, limit: 3, afterSeq: cursor });
          seen.push(...page.events.map((event) => event.seq));
          cursor = page.nextCursor;
          pages++;
        } while (cursor !== undefined && pages < 10);
        expect(seen).toEqual([1, 2, 3, 4, 5, 6, 7]);
        expect(pages).toBe(3);
      });

      it('pages backward with cursors', async () => {
        const key = await newSession();
        await appendMany(key, 5);
        const first = await service.listEvents({ ...key, limit: 2, order: 'desc' });
        expect(first.events.map((event) => event.seq)).toEqual([5, 4]);
        expect(first.nextCursor).toBe(4);
        const second = await service.listEvents({
          ...key,
          limit: 2,
          order: 'desc',
          beforeSeq: first.nextCursor,
        });
        expect(second.events.map((event) => event.seq)).toEqual([3, 2]);
        const third = await service.listEvents({
          ...key,
          limit: 2,
          order: 'desc',
          beforeSeq: second.nextCursor,
        });
        expect(third.events.map((event) => event.seq)).toEqual([1]);
        expect(third.nextCursor).toBeUndefined();
      });

      it('gives no cursor when a page ends exactly at the last event', async () => {
        const key = await newSession();
        await appendMany(key, 4);
        const page = await service.listEvents({ ...key, limit: 4 });
        expect(page.events).toHaveLength(4);
        expect(page.nextCursor).toBeUndefined();
      });

      it('bounds by afterSeq and beforeSeq together and includes compactions', async () => {
        const key = await newSession();
        await appendMany(key, 3);
        await service.appendCompaction({
          ...key,
          event: make.compaction({ startSeq: 1, endSeq: 2 }),
          expectedCheckpointSeq: null,
        });
        await appendMany(key, 2);
        const page = await service.listEvents({ ...key, afterSeq: 2, beforeSeq: 6 });
        expect(page.events.map((event) => event.seq)).toEqual([3, 4, 5]);
        expect(page.events[1]?.actions.compaction?.endSeq).toBe(2);
      });

      it('throws SessionNotFoundError for a missing session', async () => {
        const error = await rejection(
          service.listEvents({ appName, userId, sessionId: 'missing' }),
        );
        expect(SessionNotFoundError.isInstance(error)).toBe(true);
      });
    });

    describe('listSessions and deleteSession', () => {
      it('lists the sessions of one app and user with their event counts', async () => {
        const first = await newSession('s-1');
        await newSession('s-2');
        await appendMany(first, 3);
        await service.createSession({ appName, userId: 'user-2', sessionId: 's-3' });
        await service.createSession({ appName: `${appName}-other`, userId, sessionId: 's-4' });
        const listed = await service.listSessions({ appName, userId });
        const sorted = [...listed].sort((a, b) => a.sessionId.localeCompare(b.sessionId));
        expect(sorted.map((session) => [session.sessionId, session.eventCount])).toEqual([
          ['s-1', 3],
          ['s-2', 0],
        ]);
        expect(sorted[0]).toMatchObject({ appName, userId });
        expect(typeof sorted[0]?.lastUpdateTime).toBe('number');
        expect(await service.listSessions({ appName, userId: 'nobody' })).toEqual([]);
        await service.deleteSession({ appName: `${appName}-other`, userId, sessionId: 's-4' });
      });

      it('deletes the session and all its events; a recreated session starts over', async () => {
        const key = await newSession('to-delete');
        await appendMany(key, 3);
        await service.appendCompaction({
          ...key,
          event: make.compaction({ startSeq: 1, endSeq: 2 }),
          expectedCheckpointSeq: null,
        });
        await service.deleteSession(key);
        expect(await service.getSession(key)).toBeUndefined();
        expect(await service.listSessions({ appName, userId })).toEqual([]);
        expect(SessionNotFoundError.isInstance(await rejection(service.loadView(key)))).toBe(true);
        await service.createSession({ appName, userId, sessionId: 'to-delete' });
        expect(await listAll(key)).toEqual([]);
        expect((await service.loadView(key)).checkpoint).toBeUndefined();
        expect((await appendMany(key, 1))[0]?.seq).toBe(1);
      });

      it('treats deleting a missing session as a no-op', async () => {
        await expect(
          service.deleteSession({ appName, userId, sessionId: 'never' }),
        ).resolves.toBeUndefined();
      });
    });

    describe('event data', () => {
      async function roundTrip(event: NewEvent): Promise<Event> {
        const key = await newSession();
        const stored = await service.appendEvent({ ...key, event });
        const [read] = await listAll(key);
        expect(read).toStrictEqual(stored);
        const view = await service.loadView(key);
        expect(view.tail[0]).toStrictEqual(stored);
        return stored;
      }

      it('stores any text as it is: emoji, right-to-left, NUL, lone surrogates', async () => {
        const text = 'emoji 😀👩🏽‍💻 RTL שלום مرحبا NUL[\u0000] lone[\ud800] tab\tnew\nline \u2028';
        const event = make.functionCall('call-1', 'read_file', { path: 'bin\u0000ary', text });
        event.content!.parts.push({ text });
        event.customMetadata = { [`key\u0000${text}`]: text };
        const stored = await roundTrip(event);
        expect(stored).toEqual({ ...event, seq: 1 });
        expect(stored.content?.parts[1]?.text).toBe(text);
      });

      it('round-trips numbers exactly: microsecond timestamps, float edges, large integers', async () => {
        const args = {
          micro: 1_732_912_345.123456,
          third: 1 / 3,
          big: Number.MAX_SAFE_INTEGER,
          negative: -Number.MAX_SAFE_INTEGER,
          huge: 1.7976931348623157e308,
          tiny: 5e-324,
          exponent: 1e21,
          small: 1e-7,
          list: [0.1 + 0.2, -1.5, 0],
        };
        const event = {
          ...make.functionCall('call-1', 'numbers', args),
          timestamp: 1_732_912_345.123456,
        };
        const stored = await roundTrip(event);
        expect(stored.timestamp).toBe(1_732_912_345.123456);
        expect(stored.content?.parts[0]?.functionCall?.args).toStrictEqual(args);
      });

      it('leaves undefined properties out, the same on every read', async () => {
        const event = {
          ...make.functionCall('call-1', 'tool', { kept: 1, dropped: undefined }),
          branch: undefined,
          customMetadata: { note: undefined, other: null },
        } as NewEvent;
        const stored = await roundTrip(event);
        expect(stored).toEqual({ ...event, seq: 1 });
        expect('branch' in stored).toBe(false);
        expect(stored.content?.parts[0]?.functionCall?.args).toStrictEqual({ kept: 1 });
        expect(stored.customMetadata).toStrictEqual({ other: null });
      });

      it('stores a 5 MB function response and nested arguments', async () => {
        const big = 'x'.repeat(5 * 1024 * 1024);
        let nested: Record<string, unknown> = { leaf: [1, 'two', null] };
        for (let level = 0; level < MAX_JSON_DEPTH - 10; level++) nested = { level, nested };
        const key = await newSession();
        await service.appendEvent({ ...key, event: make.functionCall('call-1', 'dump', nested) });
        const response: NewEvent = {
          ...make.message('unused'),
          author: 'agent',
          content: {
            role: 'user',
            parts: [
              { functionResponse: { id: 'call-1', name: 'dump', response: { output: big } } },
            ],
          },
        };
        await service.appendEvent({ ...key, event: response });
        const [call, read] = await listAll(key);
        expect(call?.content?.parts[0]?.functionCall?.args).toStrictEqual(nested);
        expect(read?.content?.parts[0]?.functionResponse?.response.output).toBe(big);
      });

      const deep = (): Record<string, unknown> => {
        let value: Record<string, unknown> = {};
        for (let level = 0; level < MAX_JSON_DEPTH + 5; level++) value = { value };
        return value;
      };
      const cyclic = (): Record<string, unknown> => {
        const value: Record<string, unknown> = { name: 'loop' };
        value.self = value;
        return value;
      };
      it.each([
        ['NaN', () => ({ score: Number.NaN }), 'score'],
        ['Infinity', () => ({ score: Number.POSITIVE_INFINITY }), 'score'],
        ['undefined in an array', () => ({ list: [1, undefined] }), 'list[1]'],
        ['a Date', () => ({ when: new Date(0) }), 'when'],
        ['a Map', () => ({ map: new Map([[1, 2]]) }), 'map'],
        ['a bigint', () => ({ count: 10n }), 'count'],
        ['a function', () => ({ callback: () => 1 }), 'callback'],
        ['a cycle', () => ({ loop: cyclic() }), 'loop.self'],
        ['nesting too deep', deep, ''],
      ])(
        'rejects %s in an event with InvalidEventError naming it; stores nothing',
        async (_, args, path) => {
          const key = await newSession();
          const event = make.functionCall('call-1', 'tool', args());
          const error = await rejection(service.appendEvent({ ...key, event }));
          expect(InvalidEventError.isInstance(error)).toBe(true);
          expect((error as InvalidEventError).path).toContain(
            `event.content.parts[0].functionCall.args${path ? `.${path}` : ''}`,
          );
          expect(await listAll(key)).toEqual([]);
          expect((await appendMany(key, 1))[0]?.seq).toBe(1);
        },
      );

      it('rejects a state that JSON cannot hold in createSession, naming the key', async () => {
        const error = await rejection(
          service.createSession({
            appName,
            userId,
            sessionId: 'bad-state',
            state: { x: Number.NaN },
          }),
        );
        expect(InvalidEventError.isInstance(error)).toBe(true);
        expect((error as InvalidEventError).path).toBe('state.x');
        expect(
          await service.getSession({ appName, userId, sessionId: 'bad-state' }),
        ).toBeUndefined();
      });

      it('replaces top-level state keys, keeps null as a value, never stores temp:', async () => {
        const key = await newSession();
        await service.appendEvent({
          ...key,
          event: make.withState({ nested: { a: 1, b: 2 }, gone: 'x', 'app:shared': { a: 1 } }),
        });
        await service.appendEvent({
          ...key,
          event: make.withState({
            nested: { b: 3 },
            gone: null,
            'user:pref': null,
            'app:shared': { c: 3 },
            'temp:scratch': { big: true },
          }),
        });
        expect((await service.getSession(key))?.state).toStrictEqual({
          nested: { b: 3 },
          gone: null,
          'user:pref': null,
          'app:shared': { c: 3 },
        });
      });

      it('stores NUL in state values, or refuses the event with InvalidEventError', async () => {
        const key = await newSession();
        const outcome = await service
          .appendEvent({ ...key, event: make.withState({ raw: 'a\u0000b' }) })
          .then(
            () => 'stored',
            (error: unknown) => error,
          );
        if (outcome === 'stored') {
          expect((await service.getSession(key))?.state).toStrictEqual({ raw: 'a\u0000b' });
          expect((await listAll(key))[0]?.actions.stateDelta).toStrictEqual({ raw: 'a\u0000b' });
        } else {
          expect(InvalidEventError.isInstance(outcome)).toBe(true);
          expect(await listAll(key)).toEqual([]);
          expect((await service.getSession(key))?.state).toStrictEqual({});
        }
      });
    });

    describe('arguments', () => {
      it.each([0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY])(
        'rejects limit %s with InvalidArgumentError naming limit',
        async (limit) => {
          const key = await newSession();
          const error = await rejection(service.listEvents({ ...key, limit }));
          expect(InvalidArgumentError.isInstance(error)).toBe(true);
          expect(error).toMatchObject({ argument: 'limit' });
        },
      );

      it.each([
        ['afterSeq', 1.5],
        ['afterSeq', Number.NaN],
        ['beforeSeq', 2.5],
        ['beforeSeq', Number.POSITIVE_INFINITY],
      ])('rejects %s %s with InvalidArgumentError naming it', async (argument, value) => {
        const key = await newSession();
        await appendMany(key, 3);
        const error = await rejection(service.listEvents({ ...key, [argument]: value }));
        expect(InvalidArgumentError.isInstance(error)).toBe(true);
        expect(error).toMatchObject({ argument });
      });

      it('takes a huge limit, negative and past-the-end cursors', async () => {
        const key = await newSession();
        await appendMany(key, 3);
        const all = await service.listEvents({ ...key, limit: 1_000_000_000 });
        expect(all.events.map((event) => event.seq)).toEqual([1, 2, 3]);
        expect(all.nextCursor).toBeUndefined();
        expect((await service.listEvents({ ...key, afterSeq: -5 })).events).toHaveLength(3);
        expect(await service.listEvents({ ...key, afterSeq: 3 })).toEqual({ events: [] });
        expect(await service.listEvents({ ...key, afterSeq: 99 })).toEqual({ events: [] });
        expect(await service.listEvents({ ...key, beforeSeq: 1, order: 'desc' })).toEqual({
          events: [],
        });
        const last = await service.listEvents({ ...key, order: 'desc', beforeSeq: 99, limit: 1 });
        expect(last.events.map((event) => event.seq)).toEqual([3]);
        expect(last.nextCursor).toBe(3);
      });

      it('pages across compaction events in both directions', async () => {
        const key = await newSession();
        await appendMany(key, 3);
        await service.appendCompaction({
          ...key,
          event: make.compaction({ startSeq: 1, endSeq: 2 }),
          expectedCheckpointSeq: null,
        });
        await appendMany(key, 2);
        await service.appendCompaction({
          ...key,
          event: make.compaction({ startSeq: 1, endSeq: 5 }),
          expectedCheckpointSeq: 4,
        });
        for (const order of ['asc', 'desc'] as const) {
          const seen: number[] = [];
          let cursor: number | undefined;
          do {
            const page = await service.listEvents({
              ...key,
              limit: 2,
              order,
              ...(order === 'asc' ? { afterSeq: cursor } : { beforeSeq: cursor }),
            });
            seen.push(...page.events.map((event) => event.seq));
            cursor = page.nextCursor;
          } while (cursor !== undefined && seen.length < 20);
          const expected = [1, 2, 3, 4, 5, 6, 7];
          expect(seen).toEqual(order === 'asc' ? expected : expected.reverse());
        }
      });

      it('takes quotes, percent signs and SQL wildcards in keys as plain characters', async () => {
        const ids = [
          `it's "quoted"`,
          '100%',
          'a_c',
          'back\\slash',
          '😀',
          'x'.repeat(MAX_KEY_BYTES),
        ];
        for (const sessionId of ids) {
          await service.createSession({ appName, userId, sessionId });
          await service.appendEvent({ appName, userId, sessionId, event: make.message(sessionId) });
        }
        expect(await service.getSession({ appName, userId, sessionId: 'abc' })).toBeUndefined();
        expect(await service.getSession({ appName, userId, sessionId: '100' })).toBeUndefined();
        expect(await service.getSession({ appName, userId, sessionId: '100%%' })).toBeUndefined();
        const listed = await service.listSessions({ appName, userId });
        expect(listed.map((session) => session.sessionId).sort()).toEqual([...ids].sort());
        const wildApp = `${appName.slice(0, -1)}_`;
        expect(await service.listSessions({ appName: wildApp, userId })).toEqual([]);
        expect(await service.listSessions({ appName: `${appName.slice(0, 12)}%`, userId })).toEqual(
          [],
        );
        await service.deleteSession({ appName, userId, sessionId: 'a%' });
        await service.deleteSession({ appName, userId, sessionId: '_' });
        for (const sessionId of ids) {
          const [event] = await listAll({ appName, userId, sessionId });
          expect(event?.content?.parts[0]?.text).toBe(sessionId);
        }
      });

      it.each([
        ['sessionId', ''],
        ['sessionId', 'nul\u0000id'],
        ['sessionId', 'x'.repeat(MAX_KEY_BYTES + 1)],
        ['sessionId', '😀'.repeat(MAX_KEY_BYTES / 4 + 1)],
        ['userId', ''],
        ['appName', 'app\u0000'],
      ])(
        'rejects %s %j with InvalidArgumentError naming it, in every method',
        async (field, value) => {
          const key = { appName, userId, sessionId: 'valid', [field]: value };
          const calls: Promise<unknown>[] = [
            service.createSession(key),
            service.getSession(key),
            service.loadView(key),
            service.listEvents(key),
            service.appendEvent({ ...key, event: make.message('x') }),
            service.appendCompaction({
              ...key,
              event: make.compaction({ startSeq: 1, endSeq: 1 }),
              expectedCheckpointSeq: null,
            }),
            service.deleteSession(key),
          ];
          if (field !== 'sessionId') calls.push(service.listSessions(key));
          for (const call of calls) {
            const error = await rejection(call);
            expect(InvalidArgumentError.isInstance(error)).toBe(true);
            expect(error).toMatchObject({ argument: field });
          }
        },
      );
    });

    describe('races', () => {
      it('keeps events appended while a compaction was planned visible after it', async () => {
        const key = await newSession();
        await appendMany(key, 4);
        const planned = await service.loadView(key);
        const late = await Promise.all(
          Array.from({ length: 5 }, (_, index) =>
            service.appendEvent({ ...key, event: make.message(`late ${index}`) }),
          ),
        );
        const compaction = await service.appendCompaction({
          ...key,
          event: make.compaction({ startSeq: 1, endSeq: planned.lastSeq }),
          expectedCheckpointSeq: planned.checkpoint?.seq ?? null,
        });
        expect(compaction.seq).toBe(10);
        const view = await service.loadView(key);
        expect(view.checkpoint?.seq).toBe(10);
        expect(view.tail.map((event) => event.seq)).toEqual(late.map((event) => event.seq).sort());
      });

      it('lets one of two racing compactions win while appends go on; nothing is lost', async () => {
        const key = await newSession();
        await appendMany(key, 6);
        const appends = Array.from({ length: 12 }, (_, index) =>
          service.appendEvent({ ...key, event: make.message(`during ${index}`) }),
        );
        const compactions = [4, 6].map((endSeq) =>
          service.appendCompaction({
            ...key,
            event: make.compaction({ startSeq: 1, endSeq, text: `to ${endSeq}` }),
            expectedCheckpointSeq: null,
          }),
        );
        const settled = await Promise.allSettled(compactions);
        const appended = await Promise.all(appends);
        const won = settled.filter((result) => result.status === 'fulfilled');
        expect(won).toHaveLength(1);
        const lost = settled.find((result) => result.status === 'rejected');
        expect(CompactionConflictError.isInstance(lost?.reason)).toBe(true);
        const winner = (won[0] as PromiseFulfilledResult<Event>).value;
        const all = await listAll(key);
        expect(all.map((event) => event.seq)).toEqual(
          Array.from({ length: 19 }, (_, index) => index + 1),
        );
        const view = await service.loadView(key);
        expect(view.checkpoint).toStrictEqual(winner);
        const endSeq = winner.actions.compaction!.endSeq;
        expect(view.tail.map((event) => event.seq)).toEqual(
          all
            .filter((event) => event.seq > endSeq && !event.actions.compaction)
            .map((event) => event.seq),
        );
        expect(view.tail.length).toBe(6 - endSeq + appended.length);
      });

      it('never resurrects a session deleted while appends were in flight', async () => {
        const key = await newSession();
        await appendMany(key, 3);
        const appends = Array.from({ length: 10 }, (_, index) =>
          service.appendEvent({ ...key, event: make.message(`racing ${index}`) }),
        );
        const deletion = service.deleteSession(key);
        const results = await Promise.allSettled(appends);
        await deletion;
        for (const result of results) {
          if (result.status === 'rejected') {
            expect(SessionNotFoundError.isInstance(result.reason)).toBe(true);
          }
        }
        expect(await service.getSession(key)).toBeUndefined();
        expect(await service.listSessions({ appName, userId })).toEqual([]);
        const after = await rejection(service.appendEvent({ ...key, event: make.message('late') }));
        expect(SessionNotFoundError.isInstance(after)).toBe(true);
        expect(await service.getSession(key)).toBeUndefined();
        await service.createSession(key);
        expect(await listAll(key)).toEqual([]);
      });

      it('lets exactly one of two racing createSession calls with one id win', async () => {
        const results = await Promise.allSettled(
          Array.from({ length: 4 }, (_, index) =>
            service.createSession({ appName, userId, sessionId: 'contested', state: { index } }),
          ),
        );
        const won = results.filter((result) => result.status === 'fulfilled');
        expect(won).toHaveLength(1);
        for (const result of results) {
          if (result.status === 'rejected') {
            expect(SessionAlreadyExistsError.isInstance(result.reason)).toBe(true);
          }
        }
        const winner = (won[0] as PromiseFulfilledResult<{ state: Record<string, unknown> }>).value;
        const loaded = await service.getSession({ appName, userId, sessionId: 'contested' });
        expect(loaded?.state).toStrictEqual(winner.state);
      });
    });

    describe('isolation by app and user', () => {
      it('hides a session from another user and another app', async () => {
        const key = await newSession('private');
        await appendMany(key, 2);
        for (const other of [
          { ...key, userId: 'intruder' },
          { ...key, appName: `${appName}-other` },
        ]) {
          expect(await service.getSession(other)).toBeUndefined();
          expect(SessionNotFoundError.isInstance(await rejection(service.loadView(other)))).toBe(
            true,
          );
          expect(SessionNotFoundError.isInstance(await rejection(service.listEvents(other)))).toBe(
            true,
          );
          expect(
            SessionNotFoundError.isInstance(
              await rejection(service.appendEvent({ ...other, event: make.message('sneaky') })),
            ),
          ).toBe(true);
          expect(
            SessionNotFoundError.isInstance(
              await rejection(
                service.appendCompaction({
                  ...other,
                  event: make.compaction({ startSeq: 1, endSeq: 1 }),
                  expectedCheckpointSeq: null,
                }),
              ),
            ),
          ).toBe(true);
          await service.deleteSession(other);
        }
        expect((await listAll(key)).map((event) => event.seq)).toEqual([1, 2]);
      });

      it('keeps same-id sessions of different users apart', async () => {
        const mine = await newSession('shared-id');
        await service.createSession({
          appName,
          userId: 'user-2',
          sessionId: 'shared-id',
          state: { who: 2 },
        });
        const theirs = { appName, userId: 'user-2', sessionId: 'shared-id' };
        await appendMany(mine, 2);
        const [first] = await appendMany(theirs, 1);
        expect(first?.seq).toBe(1);
        expect(await listAll(mine)).toHaveLength(2);
        expect((await service.getSession(theirs))?.state).toEqual({ who: 2 });
        await service.deleteSession(theirs);
        expect(await listAll(mine)).toHaveLength(2);
      });
    });
  });
}
