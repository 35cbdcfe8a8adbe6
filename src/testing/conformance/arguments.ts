import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../../events/errors.js';
import { MAX_KEY_BYTES } from '../../sessions/store-helpers.js';
import { type ConformanceContext, make, rejection } from './context.js';

/** Argument checks: listEvents limit and cursors, session key fields. */
export function describeArguments(context: ConformanceContext): void {
  const { newSession, appendMany, listAll } = context;
  describe('arguments', () => {
    it.each([0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY])(
      'rejects limit %s with InvalidArgumentError naming limit',
      async (limit) => {
        const { service } = context;
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
      const { service } = context;
      const key = await newSession();
      await appendMany(key, 3);
      const error = await rejection(service.listEvents({ ...key, [argument]: value }));
      expect(InvalidArgumentError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({ argument });
    });

    it('takes a huge limit, negative and past-the-end cursors', async () => {
      const { service } = context;
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
      const { service } = context;
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
      const { service, appName, userId } = context;
      const ids = [`it's "quoted"`, '100%', 'a_c', 'back\\slash', '😀', 'x'.repeat(MAX_KEY_BYTES)];
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
        const { service, appName, userId } = context;
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
}
