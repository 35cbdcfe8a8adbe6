import { expect, it } from 'vitest';
import { buildLeaseQueries } from './lease.js';
import { quoteIdentifier } from './migrations.js';
import { PostgresSessionService } from './postgres-session-service.js';
import { withValues } from './queries.js';
import { describePostgres, useSchemaFixture } from './test-helpers/pg-test-env.js';

describePostgres('PostgreSQL lease row: kept and marked free on release', (url) => {
  const fixture = useSchemaFixture(url);
  const key = { appName: 'app', userId: 'user', sessionId: 'kept' };

  const leaseRows = async () =>
    (
      await fixture.pool.query<{ holder: string; free: boolean }>(
        `SELECT holder, expires_at = '-infinity' AS free
          FROM ${quoteIdentifier(fixture.schema)}.orrery_session_leases
          WHERE app_name = $1 AND user_id = $2 AND session_id = $3`,
        [key.appName, key.userId, key.sessionId],
      )
    ).rows;

  it('keeps one row per session across takes, frees it on release, and a released holder cannot renew', async () => {
    const first = new PostgresSessionService({ connectionString: url, schema: fixture.schema });
    const second = new PostgresSessionService({ connectionString: url, schema: fixture.schema });
    try {
      await first.createSession(key);
      let lastHolder = '';
      for (const service of [first, second, first, second]) {
        const lease = await service.acquireLease({ ...key, renew: false, waitMs: 0 });
        const held = await leaseRows();
        expect(held).toEqual([{ holder: lease.leaseId, free: false }]);
        lastHolder = lease.leaseId;
        await lease.release();
        expect(await leaseRows()).toEqual([{ holder: '', free: true }]);
      }
      // The released holder's renewal finds no row of its own (no lease comes back to life).
      const renewed = await fixture.pool.query(
        withValues(buildLeaseQueries(fixture.schema).renew, [
          key.appName,
          key.userId,
          key.sessionId,
          lastHolder,
          30_000,
        ]),
      );
      expect(renewed.rowCount).toBe(0);
      expect(await leaseRows()).toEqual([{ holder: '', free: true }]);
      // A deleted session takes its free lease row with it.
      await first.deleteSession(key);
      expect(await leaseRows()).toEqual([]);
    } finally {
      await first.close();
      await second.close();
    }
  });

  it('keeps a held lease row when its session is deleted', async () => {
    const service = new PostgresSessionService({ connectionString: url, schema: fixture.schema });
    const held = { ...key, sessionId: 'held' };
    try {
      await service.createSession(held);
      const lease = await service.acquireLease({ ...held, renew: false });
      await service.deleteSession(held);
      const { rows } = await fixture.pool.query(
        `SELECT holder FROM ${quoteIdentifier(fixture.schema)}.orrery_session_leases
          WHERE session_id = 'held'`,
      );
      expect(rows).toEqual([{ holder: lease.leaseId }]);
      await lease.release();
    } finally {
      await service.close();
    }
  });
});
