import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../../events/errors.js';
import type { Event, Session } from '../../events/types.js';
import { SessionMemoryService } from '../../sessions/session-memory-service.js';
import { compactionEvent, modelTextEvent, userTextEvent } from '../event-builders.js';
import { type ConformanceContext, fields, make, rejection } from './context.js';

/**
 * `SessionMemoryService` over the store (needs `searchEvents`): memory across a user's
 * sessions in ADK's shape, never another user's, a foreign session copied once.
 */
export function describeMemory(context: ConformanceContext): void {
  describe('SessionMemoryService', () => {
    const memory = () => new SessionMemoryService({ sessionService: context.service });

    async function say(sessionId: string, text: string, userId = context.userId) {
      const key = { appName: context.appName, userId, sessionId };
      if (!(await context.service.getSession(key))) await context.service.createSession(key);
      return context.service.appendEvent({ ...key, event: userTextEvent({ ...fields(), text }) });
    }

    it("finds the user's events across sessions, with session, seq, author and time", async () => {
      await say('monday', 'We talked about the weather and lunch.');
      const target = await say('tuesday', 'The vault combination is kept by Rosalind.');
      await say('wednesday', 'The weather stayed sunny.');
      const { memories } = await memory().searchMemory({
        appName: context.appName,
        userId: context.userId,
        query: 'who keeps the vault combination?',
      });
      expect(memories[0]).toStrictEqual({
        content: target.content,
        author: 'user',
        timestamp: target.timestamp,
        sessionId: 'tuesday',
        seq: target.seq,
      });
      const limited = await memory().searchMemory({
        appName: context.appName,
        userId: context.userId,
        query: 'weather vault',
        limit: 1,
      });
      expect(limited.memories).toHaveLength(1);
      // The calling session left out: the others fill the page.
      const elsewhere = await memory().searchMemory({
        appName: context.appName,
        userId: context.userId,
        query: 'weather vault combination',
        excludeSessionId: 'tuesday',
      });
      expect(elsewhere.memories.map((entry) => entry.sessionId).sort()).toEqual([
        'monday',
        'wednesday',
      ]);
    });

    it("never returns another user's or another app's events", async () => {
      await say('mine', 'nothing relevant here');
      await say('theirs', 'the zeppelin hangar code is 7731', 'user-2');
      const { memories } = await memory().searchMemory({
        appName: context.appName,
        userId: context.userId,
        query: 'zeppelin hangar code',
      });
      expect(memories).toEqual([]);
      const otherApp = await memory().searchMemory({
        appName: `${context.appName}-other`,
        userId: 'user-2',
        query: 'zeppelin hangar code',
      });
      expect(otherApp.memories).toEqual([]);
      const owner = await memory().searchMemory({
        appName: context.appName,
        userId: 'user-2',
        query: 'zeppelin hangar code',
      });
      expect(owner.memories.map((entry) => entry.sessionId)).toEqual(['theirs']);
    });

    it("reads the turns around a memory (readMemories): in seq order, no summaries, never another user's", async () => {
      for (const text of ['first turn', 'second turn', 'third turn']) await say('range', text);
      const key = { appName: context.appName, userId: context.userId, sessionId: 'range' };
      await context.service.appendCompaction({
        ...key,
        event: make.compaction({ startSeq: 1, endSeq: 2 }),
        expectedCheckpointSeq: null,
      });
      const fifth = await say('range', 'fifth turn');
      await say('range', 'the other user', 'user-2');
      const read = (userId: string, fromSeq: number, toSeq: number) =>
        memory().readMemories({ ...key, userId, fromSeq, toSeq });
      const entries = await read(context.userId, 2, 6);
      expect(entries.map((entry) => entry.seq)).toEqual([2, 3, 5]);
      expect(entries[2]).toStrictEqual({
        content: fifth.content,
        author: 'user',
        timestamp: fifth.timestamp,
        sessionId: 'range',
        seq: 5,
      });
      expect((await read('user-2', 1, 5)).map((entry) => entry.seq)).toEqual([1]);
      expect(await read('user-3', 1, 5)).toEqual([]);
      const bad = await rejection(read(context.userId, 4, 2));
      expect(InvalidArgumentError.isInstance(bad)).toBe(true);
      expect(bad).toMatchObject({ argument: 'toSeq' });
    });

    it('copies nothing for a session the store holds, and a foreign session once', async () => {
      const stored = await say('held', 'the greenhouse thermostat is set to 19 degrees');
      const held = await context.service.getSession({
        appName: context.appName,
        userId: context.userId,
        sessionId: 'held',
        events: 'full',
      });
      await memory().addSessionToMemory(held as Session);
      expect(await context.listAll({ ...context, sessionId: 'held' })).toStrictEqual([stored]);

      const foreignEvents: Event[] = [
        { ...userTextEvent({ ...fields(), text: 'the lighthouse keeper is Ottoline' }), seq: 1 },
        {
          ...modelTextEvent({
            ...fields(),
            text: 'noted',
            actions: { stateDelta: { 'user:x': 1 } },
          }),
          seq: 2,
        },
        { ...compactionEvent({ ...fields(), startSeq: 1, endSeq: 2 }), seq: 3 } as Event,
      ];
      const foreign: Session = {
        appName: context.appName,
        userId: context.userId,
        sessionId: 'from-elsewhere',
        state: { 'user:x': 1 },
        lastUpdateTime: 1,
        events: foreignEvents,
      };
      await memory().addSessionToMemory(foreign);
      await memory().addSessionToMemory(foreign);
      const copied = await context.listAll({ ...context, sessionId: 'from-elsewhere' });
      // Content, author and time kept; no summary, no state change, added once.
      expect(copied.map((event) => [event.seq, event.author, event.timestamp])).toEqual([
        [1, foreignEvents[0]!.author, foreignEvents[0]!.timestamp],
        [2, foreignEvents[1]!.author, foreignEvents[1]!.timestamp],
      ]);
      const session = await context.service.getSession({ ...context, sessionId: 'from-elsewhere' });
      expect(session?.state).toEqual({});
      const { memories } = await memory().searchMemory({
        appName: context.appName,
        userId: context.userId,
        query: 'lighthouse keeper',
      });
      expect(memories[0]).toMatchObject({ sessionId: 'from-elsewhere', seq: 1 });
    });

    it('filters by time and author, and names a bad query', async () => {
      const early = await say('one', 'the ferry leaves from pier nine');
      const late = await say('two', 'the ferry now leaves from pier four');
      const { memories } = await memory().searchMemory({
        appName: context.appName,
        userId: context.userId,
        query: 'ferry pier',
        after: early.timestamp,
      });
      expect(memories.map((entry) => entry.seq + entry.sessionId)).toEqual([`${late.seq}two`]);
      const byAgent = await memory().searchMemory({
        appName: context.appName,
        userId: context.userId,
        query: 'ferry pier',
        authors: ['agent'],
      });
      expect(byAgent.memories).toEqual([]);
      const error = await rejection(
        memory().searchMemory({
          appName: context.appName,
          userId: context.userId,
          query: 42 as unknown as string,
        }),
      );
      expect(InvalidArgumentError.isInstance(error)).toBe(true);
      expect((error as InvalidArgumentError).argument).toBe('query');
      const badLimit = await rejection(
        memory().searchMemory({
          appName: context.appName,
          userId: context.userId,
          query: 'ferry',
          limit: 0,
          excludeSessionId: 'one',
        }),
      );
      expect((badLimit as InvalidArgumentError).argument).toBe('limit');
    });
  });
}
