import { expect, it } from 'vitest';
import { userTextEvent } from '../../testing/event-builders.js';
import { quoteIdentifier } from './migrations.js';
import { PostgresSessionService } from './postgres-session-service.js';
import { describePostgres, useSchemaFixture } from './test-helpers/pg-test-env.js';
import { waitForLockWait } from './test-helpers/record-statements.js';
import { useRecordedReplica } from './test-helpers/recorded-replica.js';

describePostgres('PostgreSQL lease and view in one statement', (url) => {
  const fixture = useSchemaFixture(url);
  const applicationName = `orrery-lease-and-view-${process.pid}`;
  const stores = useRecordedReplica({ url, schema: fixture.schema, applicationName });

  it('takes the lease and reads only what another writer appended, in one statement', async () => {
    const key = { appName: 'app', userId: 'u', sessionId: 'one-statement' };
    await stores.replica.createSession(key);
    const cold = await stores.replica.acquireLeaseAndGetSession(key);
    expect(cold.session?.events).toEqual([]);
    const own = await stores.replica.appendEvent({
      ...key,
      event: userTextEvent({ text: 'mine' }),
    });
    await cold.lease.release();
    const foreign = await stores.other.appendEvent({
      ...key,
      event: userTextEvent({ text: 'theirs' }),
    });

    stores.sent.length = 0;
    const warm = await stores.replica.acquireLeaseAndGetSession(key);
    // One statement: the take with the header and the one row appended by the stores.other writer
    // (the instance's own append is in its view cache, not read again).
    expect(stores.sent.map((statement) => statement.words)).toEqual(['WITH taken']);
    expect(stores.sent[0]?.rows.filter((row) => row.part === 2)).toHaveLength(1);
    expect(warm.session?.events.map((event) => event.seq)).toEqual([own.seq, foreign.seq]);
    // The lease is held: another instance cannot take it.
    await expect(stores.other.acquireLease({ ...key, waitMs: 0 })).rejects.toThrow(/busy|waited/i);
    await warm.lease.release();
  });

  it('reads the view again when a writer committed after the snapshot the take waited in', async () => {
    const key = { appName: 'app', userId: 'u', sessionId: 'snapshot-race' };
    await stores.replica.createSession(key);
    const first = await stores.replica.acquireLeaseAndGetSession(key);
    await first.lease.release();
    // Another transaction holds the lease row's lock (a holder releasing), so the take waits
    // after its statement's snapshot was taken.
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
      const taking = stores.replica.acquireLeaseAndGetSession({ ...key, waitMs: 60_000 });
      await waitForLockWait(fixture.pool, applicationName);
      // The "previous holder" appends its answer, then frees its lease row (the rollback).
      const answer = await stores.other.appendEvent({
        ...key,
        event: userTextEvent({ text: 'late' }),
      });
      await blocker.query('ROLLBACK');
      const taken = await taking;
      expect(taken.session?.events.map((event) => event.seq)).toEqual([answer.seq]);
      // The take's snapshot missed the answer; the check saw it and the view was read again.
      expect(stores.sent.map((statement) => statement.words)).toEqual(['WITH taken', 'SELECT 0']);
      await taken.lease.release();
    } finally {
      blocker.release();
    }
  });

  it('holds the lease for a missing session and reports it missing', async () => {
    const key = { appName: 'app', userId: 'u', sessionId: 'never-created' };
    const taken = await stores.replica.acquireLeaseAndGetSession(key);
    expect(taken.session).toBeUndefined();
    await expect(stores.other.acquireLease({ ...key, waitMs: 0 })).rejects.toThrow(/busy|waited/i);
    await taken.lease.release();
    const again = await stores.other.acquireLease({ ...key, waitMs: 0 });
    await again.release();
  });

  it('sends no named statement with preparedStatements: false, and checks the option', async () => {
    const key = { appName: 'app', userId: 'u', sessionId: 'unprepared' };
    const unprepared = new PostgresSessionService({
      pool: stores.pool,
      schema: fixture.schema,
      preparedStatements: false,
    });
    await unprepared.createSession(key);
    const first = await unprepared.acquireLeaseAndGetSession(key);
    await unprepared.appendEvent({ ...key, event: userTextEvent({ text: 'one' }) });
    await first.lease.release();
    stores.sent.length = 0;
    const second = await unprepared.acquireLeaseAndGetSession(key);
    await unprepared.appendEvent({ ...key, event: userTextEvent({ text: 'two' }) });
    await second.lease.release();
    expect(stores.sent.map((statement) => statement.words)).toEqual([
      'WITH taken',
      'WITH s',
      'WITH commit_mode',
    ]);
    expect(stores.sent.some((statement) => statement.named)).toBe(false);
    expect(
      () => new PostgresSessionService({ pool: stores.pool, preparedStatements: 'yes' as never }),
    ).toThrow(expect.objectContaining({ argument: 'preparedStatements' }));
  });
});
