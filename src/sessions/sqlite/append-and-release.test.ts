import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { userTextEvent } from '../../testing/event-builders.js';
import { SessionBusyError, SessionNotFoundError } from '../errors.js';
import { SqliteSessionService } from './sqlite-session-service.js';

describe('SQLite append and lease release in one write', () => {
  let folder: string;
  let replica: SqliteSessionService;
  /** Another process's store on the same file. */
  let other: SqliteSessionService;

  beforeEach(() => {
    folder = mkdtempSync(join(tmpdir(), 'orrery-append-release-'));
    replica = new SqliteSessionService({ path: join(folder, 'sessions.db') });
    other = new SqliteSessionService({ path: join(folder, 'sessions.db') });
  });

  afterEach(async () => {
    await replica.close();
    await other.close();
    rmSync(folder, { recursive: true, force: true });
  });

  it('appends and frees the lease row; another process takes it at once', async () => {
    const key = { appName: 'app', userId: 'u', sessionId: 'folded' };
    await replica.createSession(key);
    await replica.appendEvent({ ...key, event: userTextEvent({ text: 'first' }) });
    await replica.loadView(key); // the view cached: the append extends it
    const lease = await replica.acquireLease(key);
    const event = await replica.appendEventAndReleaseLease({
      ...key,
      event: userTextEvent({ text: 'last' }),
      lease,
    });
    expect(event).toMatchObject({ seq: 2, author: 'user' });
    // Free in the file (another process) and in this process (the local gate).
    const theirs = await other.acquireLease({ ...key, waitMs: 0 });
    await theirs.release();
    const ours = await replica.acquireLease({ ...key, waitMs: 0 });
    await ours.release();
    // The released lease frees nothing more; its signal never aborted.
    const again = await other.acquireLease({ ...key, waitMs: 0 });
    await lease.release();
    await expect(replica.acquireLease({ ...key, waitMs: 0 })).rejects.toThrow(SessionBusyError);
    await again.release();
    expect(lease.signal.aborted).toBe(false);
    const view = await other.loadView(key);
    expect(view.tail.map((stored) => stored.seq)).toEqual([1, 2]);
  });

  it('a lease no longer held: the event stored, the new holder keeps it', async () => {
    const key = { appName: 'app', userId: 'u', sessionId: 'lost' };
    await replica.createSession(key);
    const lapsed = await replica.acquireLease({ ...key, ttlMs: 10, renew: false });
    await new Promise((resolve) => setTimeout(resolve, 30));
    const theirs = await other.acquireLease({ ...key, waitMs: 0 });
    const event = await replica.appendEventAndReleaseLease({
      ...key,
      event: userTextEvent({ text: 'late' }),
      lease: lapsed,
    });
    expect(event.seq).toBe(1);
    // Still theirs: nobody else takes it.
    await expect(replica.acquireLease({ ...key, waitMs: 0 })).rejects.toThrow(SessionBusyError);
    await theirs.release();
    await lapsed.release();
  });

  it('a failed append frees nothing and stores nothing; the holder releases', async () => {
    const key = { appName: 'app', userId: 'u', sessionId: 'never-created' };
    const lease = await replica.acquireLease(key);
    const failed = replica.appendEventAndReleaseLease({
      ...key,
      event: userTextEvent({ text: 'nowhere' }),
      lease,
    });
    await expect(failed).rejects.toThrow(SessionNotFoundError);
    await expect(other.acquireLease({ ...key, waitMs: 0 })).rejects.toThrow(SessionBusyError);
    await lease.release();
    const next = await other.acquireLease({ ...key, waitMs: 0 });
    await next.release();
    expect(await replica.getSession(key)).toBeUndefined();
  });

  it('exclusive (a lease with no row): appended, then released', async () => {
    const exclusive = new SqliteSessionService({
      path: join(folder, 'exclusive.db'),
      exclusive: true,
    });
    try {
      const key = { appName: 'app', userId: 'u', sessionId: 'alone' };
      await exclusive.createSession(key);
      const lease = await exclusive.acquireLease(key);
      const event = await exclusive.appendEventAndReleaseLease({
        ...key,
        event: userTextEvent({ text: 'only' }),
        lease,
      });
      expect(event.seq).toBe(1);
      const next = await exclusive.acquireLease({ ...key, waitMs: 0 });
      await next.release();
      expect((await exclusive.getSession(key))?.events.map((stored) => stored.seq)).toEqual([1]);
    } finally {
      await exclusive.close();
    }
  });
});
