import { describe, expect, it } from 'vitest';
import { SessionAlreadyExistsError } from '../../sessions/errors.js';
import { type ConformanceContext, make, rejection } from './context.js';

/** createSession and getSession: generated and given ids, duplicates, view or full history. */
export function describeCreateAndGet(context: ConformanceContext): void {
  const { newSession, appendMany, listAll } = context;
  describe('createSession and getSession', () => {
    it('generates a session id when none is given', async () => {
      const { service, appName, userId } = context;
      const first = await service.createSession({ appName, userId });
      const second = await service.createSession({ appName, userId });
      expect(first.sessionId).toMatch(/\S/);
      expect(second.sessionId).not.toBe(first.sessionId);
      expect(first).toMatchObject({ appName, userId, events: [] });
      expect(typeof first.lastUpdateTime).toBe('number');
    });

    it('keeps a given session id and initial state', async () => {
      const { service, appName, userId } = context;
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
      const { service, appName, userId } = context;
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
      const { service, appName, userId } = context;
      expect(await service.getSession({ appName, userId, sessionId: 'nope' })).toBeUndefined();
    });

    it('loads the active view by default and the full history on request', async () => {
      const { service } = context;
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
}
