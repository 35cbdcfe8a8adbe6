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
  RANGE_MARGIN,
  searchParameters,
  walkFloor,
} from './search.js';
import { describePostgres, useSchemaFixture } from './test-helpers/pg-test-env.js';

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
      `EXPLAIN (FORMAT JSON) ${buildSearchStatements(schema).ranked({ walks: [true], fenced: true })}`,
      searchParameters({ search, terms, limit: 5, share: () => 1 }),
    );
    const plan = explained.rows[0]?.['QUERY PLAN'][0]?.Plan;
    if (!plan) throw new Error('no plan');
    const scans = nodes(plan).filter((node) => node['Relation Name'] === 'orrery_events');
    // The candidates by an index walk in seq order (stopped at the cap), never a GIN read of
    // every match; the rest are reads of the ranked rows by primary key and the df count a
    // common term never reaches (its share gives df).
    expect(scans.map((node) => [node['Node Type'], node['Index Name']])).toContainEqual([
      'Index Scan',
      'orrery_events_user_seq',
    ]);
  });

  it("reads a common word's recent matches over a seq range, and walks when it falls short", async () => {
    const schema = fixture.newSchema();
    const service = new PostgresSessionService({ pool: fixture.pool, schema });
    // "plover" in every event up to seq 3000, then in every 100th: the 1000 most recent
    // matches are seqs 2051..3000 and the 50 later ones.
    const events = Array.from({ length: 8000 }, (_, index) =>
      userTextEvent({
        id: `e${index}`,
        invocationId: 'i',
        timestamp: 1_700_000_000 + index,
        text: index < 3000 || (index + 1) % 100 === 0 ? `a plover, ${index}` : `a gull, ${index}`,
      }),
    );
    await service.importSession({ ...key, events });
    const statements = buildSearchStatements(schema);
    const search = resolveSearchOptions({ ...key, query: 'plover', limit: 1000 });
    const terms = queryTerms('plover');
    const ranked = async (share: number, lastSeq = 8000) => {
      const result = await fixture.pool.query<{ seq: string }>(
        statements.ranked({ walks: [true], fenced: false }),
        searchParameters({
          search,
          terms,
          limit: 1000,
          share: () => share,
          scope: { sessions: 1, lastSeq },
        }),
      );
      return result.rows.map((row) => Number(row.seq)).sort((a, b) => a - b);
    };
    const expected = [
      ...Array.from({ length: 950 }, (_, index) => 2051 + index),
      ...Array.from({ length: 50 }, (_, index) => 3100 + index * 100),
    ];
    const floor = (share: number, lastSeq = 8000) =>
      walkFloor({ search, share, cap: MAX_RANKED_CANDIDATES, lastSeq });
    // 0.25 and 0.2: the range (seq > 2000, > 500) holds the cap; 0.1: it would hold the whole
    // session, and 0.5 is above MAX_RANGE_SHARE (no range, the walk). A highest seq of 20000
    // puts the floor (14000) above every match: the range holds none, the walk runs after it.
    expect([floor(0.25), floor(0.2), floor(0.1), floor(0.5), floor(0.25, 20_000)]).toEqual([
      8000 - (RANGE_MARGIN * 1000) / 0.25,
      8000 - (RANGE_MARGIN * 1000) / 0.2,
      undefined,
      undefined,
      14_000,
    ]);
    for (const share of [0.25, 0.2, 0.1, 0.5]) {
      expect(await ranked(share), `share ${share}`).toEqual(expected);
    }
    expect(await ranked(0.25, 20_000)).toEqual(expected);
    // Without a session no range: seqs repeat across sessions, ties kept in the walk's order.
    const across = { ...search, sessionId: undefined };
    expect(walkFloor({ search: across, share: 0.25, cap: 1000, lastSeq: 8000 })).toBe(undefined);
    // The service: the same events as the statement found (share from ANALYZE).
    await fixture.pool.query(`ANALYZE "${schema}".orrery_events`);
    const hits = await service.searchEvents({ ...key, query: 'plover', limit: 1000 });
    expect(hits.map((hit) => hit.seq).sort((a, b) => a - b)).toEqual(expected);
  });

  it("estimates a rarer common word's df over a seq range, and counts it when the range falls short", async () => {
    const schema = fixture.newSchema();
    const service = new PostgresSessionService({ pool: fixture.pool, schema });
    await service.createSession(key);
    // "heron" in every 53rd of 20,000 events (377 matches, a share of 0.019, below WALK_SHARE).
    await fixture.pool.query(
      `INSERT INTO "${schema}".orrery_events (app_name, user_id, session_id, seq, event_id,
         invocation_id, author, timestamp, is_compaction, event)
       SELECT 'a', 'u', 's', seq, 'e' || seq, 'i', 'user', seq, false, jsonb_build_object(
         'id', 'e' || seq, 'invocationId', 'i', 'author', 'user', 'timestamp', seq,
         'actions', '{}'::jsonb, 'content', jsonb_build_object('role', 'user', 'parts',
         jsonb_build_array(jsonb_build_object('text', CASE WHEN seq % 53 = 0 THEN 'a heron '
           ELSE 'a gull ' END || seq))))
       FROM generate_series(1, 20000) AS seq`,
    );
    await fixture.pool.query(
      `UPDATE "${schema}".orrery_sessions SET last_seq = 20000, event_count = 20000`,
    );
    const statements = buildSearchStatements(schema);
    const query = 'heron egret ibis stork';
    const search = resolveSearchOptions({ ...key, query, limit: 5 });
    const terms = queryTerms(query);
    const cap = MAX_RANKED_CANDIDATES / terms.length;
    const ranked = async (share: number, estimated: boolean) => {
      // 100,000 events in scope: the estimate (share times that) reaches MIN_ESTIMATED_MATCHES.
      const scope = { sessions: 1, lastSeq: 20_000, events: 100_000 };
      const result = await fixture.pool.query<{ seq: string; score: number }>(
        statements.ranked({
          walks: [false, false, false, false],
          fenced: false,
          estimated: [estimated, false, false, false],
        }),
        searchParameters({
          search,
          terms,
          limit: 5,
          share: (term) => (term.kind === 'word' && term.text === 'heron' ? share : undefined),
          scope,
        }),
      );
      return result.rows.map((row) => ({ seq: Number(row.seq), score: Number(row.score) }));
    };
    const matches = (top: number) => Array.from({ length: 5 }, (_, index) => top - index * 53);
    // 0.019: the range (seq > 20000 - 1.5 * 250 / 0.019) holds the cap; the most recent matches
    // come back, scored with df 0.019 * 20000 = 380 where the count says 377.
    expect(walkFloor({ search, share: 0.019, cap, lastSeq: 20_000, events: 100_000 })).toBe(
      20_000 - Math.ceil((RANGE_MARGIN * cap) / 0.019),
    );
    expect(walkFloor({ search, share: 0.019, cap, lastSeq: 20_000, events: 20_000 })).toBe(
      undefined,
    );
    const counted = await ranked(0.019, false);
    const estimated = await ranked(0.019, true);
    expect(counted.map((row) => row.seq)).toEqual(matches(19_981));
    expect(estimated.map((row) => row.seq)).toEqual(matches(19_981));
    const idf = (df: number) => Math.log(1 + (20_000 - df + 0.5) / (df + 0.5));
    expect(estimated[0]!.score / counted[0]!.score).toBeCloseTo(idf(380) / idf(377), 9);
    // 0.1 (the term far rarer in the session than that): the range (seq > 16250) holds 71
    // matches, short of the cap; the GIN read and count then give the counted rows and scores.
    expect(await ranked(0.1, true)).toEqual(counted);
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

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  Plans?: PlanNode[];
}

function nodes(plan: PlanNode): PlanNode[] {
  return [plan, ...(plan.Plans ?? []).flatMap(nodes)];
}
