import { expect, it } from 'vitest';
import { userTextEvent } from '../../testing/event-builders.js';
import { SessionBusyError, SessionNotFoundError, SessionStoreError } from '../errors.js';
import { PostgresSessionService } from './postgres-session-service.js';
import { describePostgres, useSchemaFixture } from './test-helpers/pg-test-env.js';
import { useRecordedReplica } from './test-helpers/recorded-replica.js';
import { refuseEventInserts } from './test-helpers/refuse-inserts.js';

describePostgres('PostgreSQL append and lease release in one statement', (url) => {
  const fixture = useSchemaFixture(url);
  const stores = useRecordedReplica({ url, schema: fixture.schema });

  it('appends and releases in one statement; another holder takes the lease at once', async () => {
    const key = { appName: 'app', userId: 'u', sessionId: 'folded' };
    await stores.replica.createSession(key);
    await stores.replica.appendEvent({ ...key, event: userTextEvent({ text: 'first' }) });
    await stores.replica.loadView(key); // the view cached: the append extends it
    const lease = await stores.replica.acquireLease(key);
    stores.sent.length = 0;
    const event = await stores.replica.appendEventAndReleaseLease({
      ...key,
      event: userTextEvent({ text: 'last' }),
      lease,
    });
    expect(event).toMatchObject({ seq: 2, author: 'user' });
    expect(stores.sent.map((statement) => statement.words)).toEqual(['WITH released']);
    expect(stores.sent[0]?.named).toBe(true);
    // Free in the database (another process) and in this process (the local gate).
    const theirs = await stores.other.acquireLease({ ...key, waitMs: 0 });
    await theirs.release();
    const ours = await stores.replica.acquireLease({ ...key, waitMs: 0 });
    await ours.release();
    // The released lease sends nothing more; its signal never aborted.
    stores.sent.length = 0;
    await lease.release();
    expect(stores.sent).toEqual([]);
    expect(lease.signal.aborted).toBe(false);
    // The append is in the cached view: the next read returns no event row.
    stores.sent.length = 0;
    const view = await stores.replica.loadView(key);
    expect(view.tail.map((stored) => stored.seq)).toEqual([1, 2]);
    expect(stores.sent[0]?.rows.filter((row) => row.part === 2)).toEqual([]);
  });

  it('a lease no longer held: the event stored, the new holder keeps it', async () => {
    const key = { appName: 'app', userId: 'u', sessionId: 'lost' };
    await stores.replica.createSession(key);
    const lapsed = await stores.replica.acquireLease({ ...key, ttlMs: 10, renew: false });
    await new Promise((resolve) => setTimeout(resolve, 30));
    const theirs = await stores.other.acquireLease({ ...key, waitMs: 0 });
    const event = await stores.replica.appendEventAndReleaseLease({
      ...key,
      event: userTextEvent({ text: 'late' }),
      lease: lapsed,
    });
    expect(event.seq).toBe(1);
    // Still theirs: nobody else takes it.
    await expect(stores.replica.acquireLease({ ...key, waitMs: 0 })).rejects.toThrow(
      SessionBusyError,
    );
    await theirs.release();
    await lapsed.release();
  });

  it('a failed statement releases nothing and stores nothing; the holder releases', async () => {
    const key = { appName: 'app', userId: 'u', sessionId: 'refused' };
    await stores.replica.createSession(key);
    const lease = await stores.replica.acquireLease(key);
    const allowInserts = await refuseEventInserts(fixture.pool, fixture.schema);
    try {
      const failed = stores.replica.appendEventAndReleaseLease({
        ...key,
        event: userTextEvent({ text: 'refused' }),
        lease,
      });
      await expect(failed).rejects.toThrow(SessionStoreError);
      await expect(failed).rejects.toThrow(/refused by the test/);
    } finally {
      await allowInserts();
    }
    // The statement's release was rolled back with its append: still held.
    await expect(stores.other.acquireLease({ ...key, waitMs: 0 })).rejects.toThrow(
      SessionBusyError,
    );
    expect(await stores.storedTexts(key)).toEqual([]);
    stores.sent.length = 0;
    await lease.release();
    expect(stores.sent.map((statement) => statement.words)).toEqual(['WITH commit_mode']);
    const free = await stores.other.acquireLease({ ...key, waitMs: 0 });
    await free.release();
  });

  it('a missing session: SessionNotFoundError; the holder releases as after appendEvent', async () => {
    const key = { appName: 'app', userId: 'u', sessionId: 'missing' };
    const lease = await stores.replica.acquireLease(key);
    const failed = stores.replica.appendEventAndReleaseLease({
      ...key,
      event: userTextEvent({ text: 'nowhere' }),
      lease,
    });
    await expect(failed).rejects.toThrow(SessionNotFoundError);
    await lease.release();
    const free = await stores.other.acquireLease({ ...key, waitMs: 0 });
    await free.release();
  });

  it('an event with app or user state: appendEvent, then the release', async () => {
    const key = { appName: 'app', userId: 'u', sessionId: 'state' };
    await stores.replica.createSession(key);
    const lease = await stores.replica.acquireLease(key);
    const event = userTextEvent({ text: 'with state' });
    event.actions = { stateDelta: { 'user:tier': 'gold' } };
    stores.sent.length = 0;
    const stored = await stores.replica.appendEventAndReleaseLease({ ...key, event, lease });
    expect(stored.seq).toBe(1);
    expect(stores.sent.map((statement) => statement.words)).toContain('WITH commit_mode');
    const free = await stores.other.acquireLease({ ...key, waitMs: 0 });
    await free.release();
    expect((await stores.other.getSession(key))?.state).toMatchObject({ 'user:tier': 'gold' });
  });

  it('with synchronousCommit set, one statement that sets it for its own transaction', async () => {
    const key = { appName: 'app', userId: 'u', sessionId: 'commit-mode' };
    const relaxed = new PostgresSessionService({
      pool: stores.pool,
      schema: fixture.schema,
      synchronousCommit: 'off',
    });
    await relaxed.createSession(key);
    const lease = await relaxed.acquireLease(key);
    stores.sent.length = 0;
    await relaxed.appendEventAndReleaseLease({
      ...key,
      event: userTextEvent({ text: 'x' }),
      lease,
    });
    expect(stores.sent.map((statement) => statement.words)).toEqual(['WITH commit_mode']);
    expect(stores.sent[0]?.values.at(-1)).toBe('off');
    const free = await stores.other.acquireLease({ ...key, waitMs: 0 });
    await free.release();
    expect(await stores.storedTexts(key)).toEqual(['x']);
  });
});
