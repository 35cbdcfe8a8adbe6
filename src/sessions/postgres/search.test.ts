import { expect, it } from 'vitest';
import type { NewEvent } from '../../events/types.js';
import { userTextEvent } from '../../testing/event-builders.js';
import { queryTerms } from '../query-terms.js';
import { resolveSearchOptions } from '../search-text.js';
import { migrate, migrations } from './migrations.js';
import { PostgresSessionService } from './postgres-session-service.js';
import {
  buildSearchStatements,
  MAX_RANKED_CANDIDATES,
  SEQ_BUCKET_SIZE,
  searchParameters,
} from './search.js';
import { describePostgres, useSchemaFixture } from './test-helpers/pg-test-env.js';
import { type PlanNode, planNodes } from './test-helpers/plan-nodes.js';

const key = { appName: 'a', userId: 'u', sessionId: 's' };

describePostgres('PostgreSQL history search', (url) => {
  const fixture = useSchemaFixture(url);

  it('indexes the events of a schema created before search existed (version 3)', async () => {
    const schema = fixture.newSchema();
    await migrate({
      pool: fixture.pool,
      schema,
      migrations: migrations.filter((migration) => migration.version <= 3),
    });
    const event: NewEvent = userTextEvent({
      id: 'e1',
      invocationId: 'i1',
      timestamp: 1_700_000_001,
      text: 'the old albatross fact',
    });
    await fixture.pool.query(
      `INSERT INTO "${schema}".orrery_sessions (app_name, user_id, id, last_seq, event_count, created_at, updated_at)
       VALUES ('a', 'u', 's', 1, 1, 0, 0)`,
    );
    await fixture.pool.query(
      `INSERT INTO "${schema}".orrery_events (app_name, user_id, session_id, seq, event_id,
         invocation_id, author, timestamp, is_compaction, event)
       VALUES ('a', 'u', 's', 1, 'e1', 'i1', 'user', 1700000001, false, $1::json)`,
      [JSON.stringify(event)],
    );
    const service = new PostgresSessionService({ pool: fixture.pool, schema });
    const hits = await service.searchEvents({ ...key, query: 'albatross' });
    expect(hits.map((hit) => hit.seq)).toEqual([1]);
    expect(hits[0]?.event).toEqual({ ...event, seq: 1 });
    await service.appendEvent({ ...key, event: userTextEvent({ text: 'a new albatross' }) });
    const after = await service.searchEvents({ ...key, query: 'albatross' });
    expect(after.map((hit) => hit.seq).sort()).toEqual([1, 2]);
  });

  it('stores and finds an event whose text holds a NUL character', async () => {
    const service = new PostgresSessionService({ pool: fixture.pool, schema: fixture.newSchema() });
    await service.createSession(key);
    const stored = await service.appendEvent({
      ...key,
      event: userTextEvent({ text: 'binary \u0000 output from the flamingo tool' }),
    });
    const hits = await service.searchEvents({ ...key, query: 'flamingo' });
    expect(hits.map((hit) => hit.event)).toStrictEqual([stored]);
  });

  it('splits paths and identifiers into words, as the other stores do', async () => {
    const service = new PostgresSessionService({ pool: fixture.pool, schema: fixture.newSchema() });
    await service.createSession(key);
    await service.appendEvent({
      ...key,
      event: userTextEvent({ text: 'edited src/payments/refund_policy.ts and user@example.com' }),
    });
    for (const query of ['refund', 'policy', 'payments', 'example']) {
      expect(
        (await service.searchEvents({ ...key, query })).map((hit) => hit.seq),
        query,
      ).toEqual([1]);
    }
  });

  it('weighs a word in every event (a speaker name) little and a rare word much', async () => {
    const service = new PostgresSessionService({ pool: fixture.pool, schema: fixture.newSchema() });
    await service.createSession(key);
    const say = (text: string) => service.appendEvent({ ...key, event: userTextEvent({ text }) });
    for (let index = 0; index < 8; index++) await say(`Caroline: note ${index} about the class`);
    await say('Caroline: Caroline thinks the class was long, Caroline says');
    const target = await say('Melanie: I signed up for pottery');
    // ts_rank_cd (no IDF) put the event with two of the words first, and "caroline" is one.
    const hits = await service.searchEvents({ ...key, query: 'Caroline pottery class', limit: 3 });
    expect(hits[0]?.seq).toBe(target.seq);
    expect(hits[0]!.score).toBeGreaterThan(hits[1]!.score);
  });

  it(`ranks the ${MAX_RANKED_CANDIDATES} most recent matches of a word; a rare word's at any age`, async () => {
    const service = new PostgresSessionService({ pool: fixture.pool, schema: fixture.newSchema() });
    const count = MAX_RANKED_CANDIDATES + 100;
    const events = Array.from({ length: count }, (_, index) =>
      userTextEvent({
        id: `e${index}`,
        invocationId: 'i',
        timestamp: 1_700_000_000 + index,
        // seq 1 says "heron" most often (the best rank), but is older than the cap.
        text: index === 0 ? 'heron heron heron heron' : index === 4 ? 'heron and egret' : 'a heron',
      }),
    );
    await service.importSession({ ...key, events });
    const single = await service.searchEvents({ ...key, query: 'heron', limit: 1000 });
    expect(single).toHaveLength(MAX_RANKED_CANDIDATES);
    expect(Math.min(...single.map((hit) => hit.seq))).toBe(count - MAX_RANKED_CANDIDATES + 1);
    const paired = await service.searchEvents({ ...key, query: 'heron egret', limit: 2 });
    expect(paired.map((hit) => hit.seq)).toEqual([5, count]);
  });

  it('without a session, caps at the most recent matches by an index walk, not a sort of all', async () => {
    const schema = fixture.newSchema();
    const service = new PostgresSessionService({ pool: fixture.pool, schema });
    // Every event says "kestrel": two sessions of user u, and a longer one of another user
    // whose higher seqs would win the cap if the index did not start with the user.
    const sessions = [
      { userId: 'u', sessionId: 's1', count: 6000 },
      { userId: 'u', sessionId: 's2', count: 6000 },
      { userId: 'other', sessionId: 's3', count: 8000 },
    ];
    for (const { userId, sessionId, count } of sessions) {
      await service.createSession({ appName: 'a', userId, sessionId });
      await fixture.pool.query(
        `INSERT INTO "${schema}".orrery_events (app_name, user_id, session_id, seq, event_id,
           invocation_id, author, timestamp, is_compaction, event)
         SELECT 'a', $1, $2, seq, 'e' || seq, 'i', 'user', seq, false, jsonb_build_object(
           'id', 'e' || seq, 'invocationId', 'i', 'author', 'user', 'timestamp', seq,
           'actions', '{}'::jsonb, 'content', jsonb_build_object('role', 'user', 'parts',
           jsonb_build_array(jsonb_build_object('text', 'a kestrel, number ' || seq))))
         FROM generate_series(1, $3::int) AS seq`,
        [userId, sessionId, count],
      );
    }
    await fixture.pool.query(`ANALYZE "${schema}".orrery_events`);
    const user = { appName: 'a', userId: 'u' };
    const hits = await service.searchEvents({ ...user, query: 'kestrel', limit: 1000 });
    expect(hits).toHaveLength(MAX_RANKED_CANDIDATES);
    expect(new Set(hits.map((hit) => hit.sessionId))).toEqual(new Set(['s1', 's2']));
    expect(Math.min(...hits.map((hit) => hit.seq))).toBe(6000 - MAX_RANKED_CANDIDATES / 2 + 1);
    const before = await service.searchEvents({ ...user, query: 'kestrel', beforeSeq: 11 });
    expect(before.every((hit) => hit.seq <= 10 && hit.sessionId !== 's3')).toBe(true);
    expect(before).toHaveLength(10);

    // "kestrel" is in every event: ANALYZE lists it as common, so it is walked, not read by GIN.
    const search = resolveSearchOptions({ ...user, query: 'kestrel', limit: 5 });
    const terms = queryTerms('kestrel');
    const explained = await fixture.pool.query<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>(
      `EXPLAIN (FORMAT JSON) ${buildSearchStatements(schema).ranked({ reads: ['walk'] })}`,
      searchParameters({ search, terms, limit: 5, share: () => 1 }),
    );
    const plan = explained.rows[0]?.['QUERY PLAN'][0]?.Plan;
    if (!plan) throw new Error('no plan');
    const scans = planNodes(plan).filter((node) => node['Relation Name'] === 'orrery_events');
    // The candidates by an index walk in seq order (stopped at the cap), never a GIN read of
    // every match; the rest are reads of the ranked rows by primary key and the df count a
    // common term never reaches (its share gives df).
    expect(scans.map((node) => [node['Node Type'], node['Index Name']])).toContainEqual([
      'Index Scan',
      'orrery_events_user_seq',
    ]);
  });

  it("reads a word's matches in the session's newest buckets, every match when they fall short", async () => {
    const schema = fixture.newSchema();
    const service = new PostgresSessionService({ pool: fixture.pool, schema });
    // "plover" in every event up to seq 3000, then in every 100th up to 20,000 (3,170 matches):
    // the 1000 most recent are seqs 2171..3000 and the 170 later ones. Another session holds
    // "plover" in each of its 9,000 events (no GIN read of this session may read them).
    const text = (index: number) =>
      index < 3000 || (index + 1) % 100 === 0 ? `a plover, ${index}` : `a gull, ${index}`;
    const events = (count: number, say: (index: number) => string) =>
      Array.from({ length: count }, (_, index) =>
        userTextEvent({
          id: `e${index}`,
          invocationId: 'i',
          timestamp: 1e9 + index,
          text: say(index),
        }),
      );
    await service.importSession({ ...key, events: events(20_000, text) });
    const other = { ...key, sessionId: 'other' };
    await service.importSession({ ...other, events: events(9000, (index) => `plover ${index}`) });
    const statements = buildSearchStatements(schema);
    const search = resolveSearchOptions({ ...key, query: 'plover', limit: 1000 });
    const terms = queryTerms('plover');
    const expected = [
      ...Array.from({ length: 830 }, (_, index) => 2171 + index),
      ...Array.from({ length: 170 }, (_, index) => 3100 + index * 100),
    ];
    const ranked = async (share: number) => {
      const values = searchParameters({
        search,
        terms,
        limit: 1000,
        share: () => share,
        reads: ['window'],
        lastSeq: 20_000,
      });
      const result = await fixture.pool.query<{ seq: string }>(
        statements.ranked({ reads: ['window'] }),
        values,
      );
      const plan = await fixture.pool.query<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>(
        `EXPLAIN (ANALYZE, FORMAT JSON) ${statements.ranked({ reads: ['window'] })}`,
        values,
      );
      const reads = planNodes(plan.rows[0]!['QUERY PLAN'][0]!.Plan).filter(
        (node) => node['Node Type'] === 'Bitmap Heap Scan',
      );
      return {
        // The first term's third parameter, after the 14 fixed ones.
        bucket: values[16],
        seqs: result.rows.map((row) => Number(row.seq)).sort((a, b) => a - b),
        // Heap rows read by each GIN read that ran (the window, then every match).
        rows: reads.filter((node) => node['Actual Loops']! > 0).map((node) => node['Actual Rows']),
      };
    };
    // A share of 0.2 sizes a window of 1.25 * 1000 / 0.2 = 6,250 events: seq 13,751 up, from
    // bucket 3 (seq 12,288 up), holding 78 matches: short of the cap, so every match of the
    // session is read after it (3,170: none of the other session's 9,000).
    const short = await ranked(0.2);
    expect(short.bucket).toBe(3);
    expect(3 * SEQ_BUCKET_SIZE).toBe(12_288);
    expect(short.seqs).toEqual(expected);
    expect(short.rows).toEqual([78, 3170]);
    // A share so small its window would be the whole session: every match at once.
    const whole = await ranked(0.0001);
    expect(whole.bucket).toBe(null);
    expect(whole.seqs).toEqual(expected);
    expect(whole.rows).toEqual([3170]);
    // The service: the same events (ANALYZE gives "plover" a share; the window or the walk).
    await fixture.pool.query(`ANALYZE "${schema}".orrery_events`);
    const hits = await service.searchEvents({ ...key, query: 'plover', limit: 1000 });
    expect(hits.map((hit) => hit.seq).sort((a, b) => a - b)).toEqual(expected);
  });

  it("estimates a word's df from the matches in its window, and counts them when it falls short", async () => {
    const schema = fixture.newSchema();
    const service = new PostgresSessionService({ pool: fixture.pool, schema });
    await service.createSession(key);
    // "heron" in every 53rd of 20,000 events (377 matches, a share of 0.019).
    await fixture.pool.query(
      `INSERT INTO "${schema}".orrery_events (app_name, user_id, session_id, seq, event_id,
         invocation_id, author, timestamp, is_compaction, event, search)
       SELECT 'a', 'u', 's', seq, 'e' || seq, 'i', 'user', seq, false, json_build_object(
         'id', 'e' || seq, 'invocationId', 'i', 'author', 'user', 'timestamp', seq,
         'actions', '{}'::json, 'content', json_build_object('role', 'user', 'parts',
         json_build_array(json_build_object('text', words)))), to_tsvector('simple', words)
       FROM (SELECT seq, CASE WHEN seq % 53 = 0 THEN 'a heron ' ELSE 'a gull ' END || seq AS words
         FROM generate_series(1, 20000) AS seq) generated`,
    );
    await fixture.pool.query(
      `UPDATE "${schema}".orrery_sessions SET last_seq = 20000, event_count = 20000`,
    );
    const statements = buildSearchStatements(schema);
    const query = 'heron egret ibis stork';
    const search = resolveSearchOptions({ ...key, query, limit: 5 });
    const terms = queryTerms(query);
    const ranked = async (options: {
      share?: number;
      terms?: typeof terms;
      cap?: number;
      beforeSeq?: number;
    }) => {
      const asked = options.terms ?? terms;
      const values = searchParameters({
        search: { ...search, beforeSeq: options.beforeSeq ?? search.beforeSeq },
        terms: asked,
        limit: 5,
        share: (term) =>
          term.kind === 'word' && term.text === 'heron' ? options.share : undefined,
        reads: asked.map(() => 'window'),
        // The other terms (no match): a share whose window would be the whole session.
        rareShare: 1e-6,
        lastSeq: 20_000,
        // $7, the candidates per term: 1000 / 4 terms unless given.
      }).map((value, index) => (index === 6 && options.cap ? options.cap : value));
      const text = statements.ranked({ reads: asked.map(() => 'window') });
      const result = await fixture.pool.query<{ seq: string; score: number }>(text, values);
      return result.rows.map((row) => ({ seq: Number(row.seq), score: Number(row.score) }));
    };
    const matches = (top: number) => Array.from({ length: 5 }, (_, index) => top - index * 53);
    // No share: every match read, df counted (377).
    const counted = await ranked({});
    expect(counted.map((row) => row.seq)).toEqual(matches(19_981));
    // 0.005: a window of 1.25 * 250 / 0.005 = 62,500 events is the whole session: the same.
    expect(await ranked({ share: 0.005 })).toEqual(counted);
    // 0.05: 6,250 events, from bucket 3 (seq 12,288 up): 146 matches, short of the cap of 250,
    // so every match is read and counted: the same.
    expect(await ranked({ share: 0.05 })).toEqual(counted);
    // One term: its window is sized for its cap of 1000 at a share of 0.5, 2,500 events: bucket
    // 4 up (seq 16,384 up), 68 matches over 3,617 events, which hold a cap lowered to 20 ($7):
    // df 68 * 20,000 / 3,617 = 376.04 (the count: 377).
    const heron = queryTerms('heron');
    const estimated = await ranked({ share: 0.5, terms: heron, cap: 20 });
    const exact = await ranked({ terms: heron, cap: 20 });
    expect(estimated.map((row) => row.seq)).toEqual(matches(19_981));
    expect(exact.map((row) => row.seq)).toEqual(matches(19_981));
    const idf = (df: number) => Math.log(1 + (20_000 - df + 0.5) / (df + 0.5));
    expect(estimated[0]!.score / exact[0]!.score).toBeCloseTo(
      idf((68 * 20_000) / 3617) / idf(377),
      9,
    );
    // Below seq 18,000: 2,500 events from seq 17,999 down, from bucket 3 (12,288) to 17,999
    // (the read also takes the rest of bucket 4 and bucket 5, for events appended since): 108
    // matches over 5,712 events.
    const before = { terms: heron, cap: 20, beforeSeq: 18_000 };
    const early = await ranked({ ...before, share: 0.5 });
    const earlyExact = await ranked(before);
    expect(early.map((row) => row.seq)).toEqual(matches(17_967));
    expect(earlyExact.map((row) => row.seq)).toEqual(matches(17_967));
    expect(early[0]!.score / earlyExact[0]!.score).toBeCloseTo(
      idf((108 * 20_000) / 5712) / idf(377),
      9,
    );
  });

  it("keeps a long event's tsvector and JSON in its row: reading either costs the heap page", async () => {
    const schema = fixture.newSchema();
    const service = new PostgresSessionService({ pool: fixture.pool, schema });
    await service.createSession(key);
    // ~200 distinct words: a vector of ~3.5 kB that pglz does not shrink (a tool output's).
    const words = Array.from(
      { length: 200 },
      (_, index) => `w${(index * 7919).toString(36)}x${index}`,
    );
    await service.appendEvent({ ...key, event: userTextEvent({ text: words.join(' ') }) });
    const stored = await fixture.pool.query<{ size: number; storage: string[] }>(
      `SELECT pg_column_size(search) AS size, (SELECT array_agg(attstorage::text ORDER BY attname)
         FROM pg_attribute WHERE attrelid = '"${schema}".orrery_events'::regclass
           AND attname IN ('event', 'search')) AS storage
       FROM "${schema}".orrery_events`,
    );
    expect(stored.rows[0]?.storage).toEqual(['m', 'm']);
    expect(stored.rows[0]!.size).toBeGreaterThan(2500);
    const pages = async (expression: string) => {
      const plan = await fixture.pool.query<{ 'QUERY PLAN': PlanNode[] }>(
        `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON)
         SELECT ${expression} FROM "${schema}".orrery_events WHERE ctid = '(0,1)'`,
      );
      const top = plan.rows[0]!['QUERY PLAN'][0] as unknown as {
        Plan: { 'Shared Hit Blocks': number; 'Shared Read Blocks': number };
      };
      return top.Plan['Shared Hit Blocks'] + top.Plan['Shared Read Blocks'];
    };
    // Out of line, a read would add a TOAST index descent and its chunks (3-5 pages).
    expect(await pages('length(search)')).toBe(1);
    expect(await pages('length(event::text)')).toBe(1);
    expect(await service.searchEvents({ ...key, query: words[150]! })).toHaveLength(1);
  });

  it("estimates a common word's df from ANALYZE and ranks as when counting it", async () => {
    const schema = fixture.newSchema();
    const service = new PostgresSessionService({ pool: fixture.pool, schema });
    // 3000 events say "wren"; one says "wren" and "osprey"; one says "osprey" alone, longer.
    const events = Array.from({ length: 3000 }, (_, index) =>
      userTextEvent({
        id: `e${index}`,
        invocationId: 'i',
        timestamp: 1_700_000_000 + index,
        text:
          index === 10
            ? 'the wren and the osprey'
            : index === 20
              ? 'an osprey over the lake at dawn, then rain'
              : `a wren, note ${index}`,
      }),
    );
    await service.importSession({ ...key, events });
    const counted = await service.searchEvents({ ...key, query: 'wren osprey', limit: 3 });
    await fixture.pool.query(`ANALYZE "${schema}".orrery_events`);
    const estimated = new PostgresSessionService({ pool: fixture.pool, schema });
    const hits = await estimated.searchEvents({ ...key, query: 'wren osprey', limit: 3 });
    expect(hits.map((hit) => hit.seq)).toEqual(counted.map((hit) => hit.seq));
    expect(hits.map((hit) => hit.seq).slice(0, 2)).toEqual([11, 21]);
    // The same with a filter (no df from the candidates: the estimate or the count decides).
    const filtered = await estimated.searchEvents({
      ...key,
      query: 'wren osprey',
      limit: 2,
      beforeSeq: 3000,
    });
    expect(filtered.map((hit) => hit.seq)).toEqual([11, 21]);
  });
});
