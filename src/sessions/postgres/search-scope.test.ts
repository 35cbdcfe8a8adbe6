import { expect, it } from 'vitest';
import { PostgresSessionService } from './postgres-session-service.js';
import { GIN_PENDING_LIST_KB } from './search-migrations.js';
import {
  bucketOf,
  bucketsTsQuery,
  SCOPED_SEARCH_VECTOR,
  SEQ_BUCKET_SIZE,
  scopeTsQuery,
} from './search-scope.js';
import { describePostgres, useSchemaFixture } from './test-helpers/pg-test-env.js';

/** Names of every kind: accents, a 4-byte character, quotes, spaces, a separator lookalike. */
const keys = [
  { appName: 'app', userId: 'user', sessionId: 'session' },
  { appName: 'appé', userId: 'ユーザー', sessionId: 'séance 🦉' },
  { appName: "o'brien", userId: 'a:b', sessionId: '"quoted" \\ back' },
  { appName: 'ap', userId: 'puser', sessionId: 'x' },
];

describePostgres('the search scope lexemes', (url) => {
  const fixture = useSchemaFixture(url);

  it('are indexed by one GIN index with a small pending list, the plain one dropped', async () => {
    const schema = fixture.newSchema();
    await new PostgresSessionService({ pool: fixture.pool, schema }).migrate();
    const { rows } = await fixture.pool.query<{ name: string; options: string[] | null }>(
      `SELECT c.relname AS name, c.reloptions AS options FROM pg_index i
         JOIN pg_class c ON c.oid = i.indexrelid
         JOIN pg_am a ON a.oid = c.relam
       WHERE i.indrelid = '"${schema}".orrery_events'::regclass AND a.amname = 'gin'`,
    );
    expect(rows).toEqual([
      {
        name: 'orrery_events_search_scoped',
        options: [`gin_pending_list_limit=${GIN_PENDING_LIST_KB}`],
      },
    ]);
  });

  it("are the indexed expression's lexemes, for names in any script", async () => {
    const matches = async (
      key: { appName: string; userId: string; sessionId: string },
      seq: number,
      query: string,
    ) => {
      const { rows } = await fixture.pool.query<{ matched: boolean }>(
        `SELECT ${SCOPED_SEARCH_VECTOR} @@ $5::tsquery AS matched FROM (SELECT ''::tsvector AS search,
           $1::text AS app_name, $2::text AS user_id, $3::text AS session_id, $4::bigint AS seq) row`,
        [key.appName, key.userId, key.sessionId, seq, query],
      );
      return rows[0]?.matched;
    };
    for (const [index, key] of keys.entries()) {
      const other = keys[(index + 1) % keys.length]!;
      expect(await matches(key, 5, scopeTsQuery(key)), key.sessionId).toBe(true);
      expect(await matches(key, 5, scopeTsQuery({ ...key, sessionId: undefined }))).toBe(true);
      expect(await matches(key, 5, scopeTsQuery({ ...key, sessionId: `${key.sessionId}x` }))).toBe(
        false,
      );
      expect(await matches(key, 5, scopeTsQuery(other))).toBe(false);
      // Seq 10,000 is in bucket 2 (8,192 to 12,287).
      const buckets = (low: number, high: number) => bucketsTsQuery({ key, low, high });
      expect(bucketOf(10_000)).toBe(2);
      expect(await matches(key, 10_000, buckets(2, 2))).toBe(true);
      expect(await matches(key, 10_000, buckets(1, 3))).toBe(true);
      expect(await matches(key, 10_000, buckets(3, 4))).toBe(false);
      expect(await matches(key, 2 * SEQ_BUCKET_SIZE - 1, buckets(2, 3))).toBe(false);
      expect(await matches(other, 10_000, buckets(2, 2))).toBe(false);
    }
    // "ap" + "puser" and "app" + "user" concatenate alike; the lengths keep them apart.
    expect(scopeTsQuery({ ...keys[0]!, sessionId: undefined })).not.toBe(
      scopeTsQuery({ ...keys[3]!, sessionId: undefined }),
    );
  });
});
