import { expect, it } from 'vitest';
import { userTextEvent } from '../../testing/event-builders.js';
import { SessionBusyError, SessionStoreError } from '../errors.js';
import { quoteIdentifier } from './migrations.js';
import { PostgresSessionService } from './postgres-session-service.js';
import { describePostgres, useSchemaFixture } from './test-helpers/pg-test-env.js';
import { waitForLockWait } from './test-helpers/record-statements.js';
import { useRecordedReplica } from './test-helpers/recorded-replica.js';
import { refuseEventInserts } from './test-helpers/refuse-inserts.js';

describePostgres('PostgreSQL lease, append and view in one statement', (url) => {
  const fixture = useSchemaFixture(url);
  const applicationName = `orrery-lease-and-append-${process.pid}`;
  const stores = useRecordedReplica({ url, schema: fixture.schema, applicationName });

  it('takes the lease, appends and reads what another writer appended, in one statement', async () => {
    const key = { appName: 'app', userId: 'u', sessionId: 'one-statement' };
    await stores.replica.createSession(key);
    const cold = await stores.replica.acquireLeaseAndAppend({
      ...key,
      event: userTextEvent({ text: 'first' }),
    });
    expect(cold.event?.seq).toBe(1);
    expect(cold.session?.events.map((event) => event.seq)).toEqual([1]);
    await cold.lease.release();
    await stores.other.appendEvent({ ...key, event: userTextEvent({ text: 'theirs' }) });

    stores.sent.length = 0;
    const warm = await stores.replica.acquireLeaseAndAppend({
      ...key,
      event: userTextEvent({ text: 'second' }),
    });
    expect(stores.sent.map((statement) => statement.words)).toEqual(['WITH taken']);
    expect(warm.event).toMatchObject({ seq: 3, author: 'user' });
    expect(warm.session?.events.map((event) => event.seq)).toEqual([1, 2, 3]);
    // The session's copy is not the returned event (the caller may change that one).
    expect(warm.session?.events[2]).toEqual(warm.event);
    expect(warm.session?.events[2]).not.toBe(warm.event);
    await expect(stores.other.acquireLease({ ...key, waitMs: 0 })).rejects.toThrow(
      SessionBusyError,
    );
    await warm.lease.release();
    // The view cache holds the append: the next take reads no row and the view is whole.
    const next = await stores.replica.acquireLeaseAndGetSession(key);
    expect(next.session?.events.map((event) => event.seq)).toEqual([1, 2, 3]);
    await next.lease.release();
    expect(await stores.storedTexts(key)).toEqual(['first', 'theirs', 'second']);
  });

  it('appends nothing when the lease is held by another holder', async () => {
    const key = { appName: 'app', userId: 'u', sessionId: 'held-elsewhere' };
    await stores.replica.createSession(key);
    const held = await stores.other.acquireLease(key);
    await expect(
      stores.replica.acquireLeaseAndAppend({
        ...key,
        waitMs: 30,
        event: userTextEvent({ text: 'no' }),
      }),
    ).rejects.toThrow(SessionBusyError);
    await held.release();
    expect(await stores.storedTexts(key)).toEqual([]);
  });

  it("waits for the holder, then appends after the holder's events", async () => {
    const key = { appName: 'app', userId: 'u', sessionId: 'waits' };
    await stores.replica.createSession(key);
    // A view cached before the holder writes: the take's rows must bring its answer.
    const warm = await stores.replica.acquireLeaseAndGetSession(key);
    await warm.lease.release();
    const held = await stores.other.acquireLease(key);
    const taking = stores.replica.acquireLeaseAndAppend({
      ...key,
      waitMs: 10_000,
      event: userTextEvent({ text: 'after' }),
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    await stores.other.appendEvent({ ...key, event: userTextEvent({ text: 'holder' }) });
    await held.release();
    const taken = await taking;
    expect(taken.event?.seq).toBe(2);
    expect(taken.session?.events.map((event) => event.seq)).toEqual([1, 2]);
    await taken.lease.release();
    expect(await stores.storedTexts(key)).toEqual(['holder', 'after']);
  });

  it('reads the view again when a writer committed after the snapshot the take waited in', async () => {
    const key = { appName: 'app', userId: 'u', sessionId: 'snapshot-race' };
    await stores.replica.createSession(key);
    const first = await stores.replica.acquireLeaseAndGetSession(key);
    await first.lease.release();
    const blocker = await fixture.pool.connect();
    try {
      await blocker.query('BEGIN');
      await blocker.query(
        `INSERT INTO ${quoteIdentifier(fixture.schema)}.orrery_session_leases
          (app_name, user_id, session_id, holder, expires_at)
          VALUES ($1, $2, $3, 'releasing-holder', clock_timestamp() + interval '1 minute')
          ON CONFLICT (app_name, user_id, session_id) DO UPDATE
            SET holder = EXCLUDED.holder, expires_at = EXCLUDED.expires_at`,
        [key.appName, key.userId, key.sessionId],
      );
      stores.sent.length = 0;
      const taking = stores.replica.acquireLeaseAndAppend({
        ...key,
        waitMs: 60_000,
        event: userTextEvent({ text: 'mine' }),
      });
      await waitForLockWait(fixture.pool, applicationName);
      await stores.other.appendEvent({ ...key, event: userTextEvent({ text: 'late' }) });
      await blocker.query('ROLLBACK');
      const taken = await taking;
      // The append follows the late answer (the UPDATE saw its commit); the snapshot did not,
      // so the view was read again.
      expect(taken.event?.seq).toBe(2);
      expect(taken.session?.events.map((event) => event.seq)).toEqual([1, 2]);
      expect(stores.sent.map((statement) => statement.words)).toEqual(['WITH taken', 'SELECT 0']);
      await taken.lease.release();
    } finally {
      blocker.release();
    }
    expect(await stores.storedTexts(key)).toEqual(['late', 'mine']);
  });

  it('holds the lease for a missing session and appends nothing', async () => {
    const key = { appName: 'app', userId: 'u', sessionId: 'never-created' };
    const taken = await stores.replica.acquireLeaseAndAppend({
      ...key,
      event: userTextEvent({ text: 'lost' }),
    });
    expect(taken.session).toBeUndefined();
    expect(taken.event).toBeUndefined();
    await expect(stores.other.acquireLease({ ...key, waitMs: 0 })).rejects.toThrow(
      SessionBusyError,
    );
    await taken.lease.release();
    const { rows } = await fixture.pool.query(
      `SELECT count(*)::int AS n FROM ${quoteIdentifier(fixture.schema)}.orrery_events
        WHERE session_id = $1`,
      [key.sessionId],
    );
    expect(rows[0].n).toBe(0);
  });

  it('takes no lease when the append fails, and says why in a store error', async () => {
    const key = { appName: 'app', userId: 'u', sessionId: 'append-fails' };
    await stores.replica.createSession(key);
    const allowInserts = await refuseEventInserts(fixture.pool, fixture.schema);
    try {
      const failed = stores.replica.acquireLeaseAndAppend({
        ...key,
        event: userTextEvent({ text: 'refused' }),
      });
      await expect(failed).rejects.toThrow(SessionStoreError);
      await expect(failed).rejects.toThrow(/refused by the test/);
    } finally {
      await allowInserts();
    }
    // The lease was never taken, the session row not moved: another holder takes it at once.
    const free = await stores.other.acquireLease({ ...key, waitMs: 0 });
    await free.release();
    const session = await stores.other.getSession(key);
    expect(session?.events).toEqual([]);
    const next = await stores.replica.acquireLeaseAndAppend({
      ...key,
      event: userTextEvent({ text: 'accepted' }),
    });
    expect(next.event?.seq).toBe(1);
    await next.lease.release();
  });

  it('appends an event with state writes in two steps, the state in the session', async () => {
    const key = { appName: 'app', userId: 'u', sessionId: 'state-delta' };
    await stores.replica.createSession(key);
    const event = userTextEvent({ text: 'with state' });
    event.actions = { stateDelta: { mood: 'fine', 'user:tier': 'gold' } };
    const taken = await stores.replica.acquireLeaseAndAppend({ ...key, event });
    expect(taken.event?.seq).toBe(1);
    expect(taken.session?.state).toMatchObject({ mood: 'fine', 'user:tier': 'gold' });
    expect(taken.session?.events.map((stored) => stored.seq)).toEqual([1]);
    await taken.lease.release();
  });

  it('sets the commit mode in the same statement with synchronousCommit', async () => {
    const key = { appName: 'app', userId: 'u', sessionId: 'commit-mode' };
    const relaxed = new PostgresSessionService({
      pool: stores.pool,
      schema: fixture.schema,
      synchronousCommit: 'off',
    });
    await relaxed.createSession(key);
    const cold = await relaxed.acquireLeaseAndAppend({
      ...key,
      event: userTextEvent({ text: 'relaxed' }),
    });
    await cold.lease.release();
    stores.sent.length = 0;
    const warm = await relaxed.acquireLeaseAndAppend({
      ...key,
      event: userTextEvent({ text: 'again' }),
    });
    expect(stores.sent.map((statement) => statement.words)).toEqual(['WITH taken']);
    expect(warm.event?.seq).toBe(2);
    expect(warm.session?.events.map((event) => event.seq)).toEqual([1, 2]);
    await warm.lease.release();
    expect(await stores.storedTexts(key)).toEqual(['relaxed', 'again']);
  });
});
