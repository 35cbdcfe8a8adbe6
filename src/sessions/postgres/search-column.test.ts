import { describe, expect, it } from 'vitest';
import type { NewEvent } from '../../events/types.js';
import {
  compactionEvent,
  functionCallEvent,
  functionResponseEvent,
  modelTextEvent,
  userTextEvent,
} from '../../testing/event-builders.js';
import { migrate, migrations } from './migrations.js';
import { PostgresSessionService } from './postgres-session-service.js';
import { toEventRowValues } from './rows.js';
import { postgresSearchText } from './search-column.js';
import { describePostgres, useSchemaFixture } from './test-helpers/pg-test-env.js';

/** Events of every shape the projection treats apart: skipped fields, arrays, numbers, escapes. */
function eventsOfEveryShape(): NewEvent[] {
  const text = (value: string) => userTextEvent({ text: value });
  return [
    text('src/foo-bar.ts, "quoted" {braces} ~tilde [x]@y `z` a_b'),
    text('Zürich 東京 🎉 café'),
    text('binary \u0000 output, then C:\\u0000dir'),
    text('a lone \ud800 high and \udc00 low surrogate'),
    text('control \u0001 \t characters\n and a C:\\u0000dir path'),
    modelTextEvent({ text: '' }),
    functionCallEvent({
      calls: [
        {
          id: 'call-1',
          name: 'read_file',
          args: {
            path: 'src/index.ts',
            numbers: [1, 2.5, -0.0001, 1e21, 2 ** 70],
            nested: { content: ['in an array under content'], role: 'kept role', id: 'kept id' },
            deep: [[1, ['deepest', { data: 'kept data' }]]],
            flag: true,
            nothing: null,
          },
        },
        'call-2',
      ],
    }),
    functionResponseEvent({
      responses: [
        {
          id: 'call-1',
          name: 'read_file',
          response: {
            content: ['s1', 's2', { text: 'object in array' }, 7],
            functionCall: ['left out by SQL'],
            functionResponse: { id: 'skipped id', name: 'kept name' },
            inlineData: { data: 'skipped data', other: 'kept other' },
            thoughtSignature: 'skipped signature',
            mimeType: 'text/skipped',
            10: 'integer key',
            2: 'another integer key',
          },
        },
      ],
    }),
    {
      ...modelTextEvent({ text: 'with a signature' }),
      content: {
        role: 'model',
        parts: [
          { text: 'thinking out loud', thoughtSignature: 'c2lnbmF0dXJl' },
          { inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' } },
        ],
      },
    },
  ];
}

describe('postgresSearchText', () => {
  it('is null for a compaction event and turns punctuation into spaces', () => {
    const compaction = toEventRowValues(compactionEvent({ startSeq: 1, endSeq: 1 }));
    expect(postgresSearchText(compaction.stored, compaction.json)).toBeNull();
    const plain = toEventRowValues(userTextEvent({ text: 'src/foo-bar.ts is here' }));
    expect(postgresSearchText(plain.stored, plain.json)).toBe('src foo bar ts is here');
  });

  it('leaves out what the SQL walk left out: array elements in an array or under content', () => {
    const values = toEventRowValues(
      functionCallEvent({
        calls: [
          {
            id: 'c',
            name: 'n',
            args: { deep: [[1, ['deepest']]], content: ['x'], flat: ['kept'] },
          },
        ],
      }),
    );
    expect(postgresSearchText(values.stored, values.json)).toBe('n kept');
  });

  it('reads the raw JSON text when PostgreSQL cannot decode a string (NUL)', () => {
    const values = toEventRowValues(userTextEvent({ text: 'a \u0000 b', id: 'e' }));
    const text = postgresSearchText(values.stored, values.json) ?? '';
    expect(text).toMatch(/ a {3}b /);
    expect(text).toContain('author user');
  });
});

describePostgres('PostgreSQL search column filled by the writer', (url) => {
  const fixture = useSchemaFixture(url);
  const key = { appName: 'a', userId: 'u', sessionId: 's' };

  /** Each row's stored tsvector beside what the generated column computed (version 4 to 6). */
  async function storedAndGenerated(schema: string, sessionId: string) {
    const result = await fixture.pool.query<{ seq: string; stored: string; generated: string }>(
      `SELECT seq, search::text AS stored,
          (CASE WHEN is_compaction THEN NULL ELSE to_tsvector('simple'::regconfig,
            "${schema}".orrery_event_search_text(event)) END)::text AS generated
        FROM "${schema}".orrery_events WHERE session_id = $1 ORDER BY seq`,
      [sessionId],
    );
    return result.rows;
  }

  it('stores what the generated column stored, for appends and imports', async () => {
    const schema = fixture.newSchema();
    const service = new PostgresSessionService({ pool: fixture.pool, schema });
    await service.createSession(key);
    const events = eventsOfEveryShape();
    for (const event of events) await service.appendEvent({ ...key, event });
    await service.appendCompaction({
      ...key,
      event: compactionEvent({ startSeq: 1, endSeq: 2 }),
      expectedCheckpointSeq: null,
    });
    await service.importSession({ ...key, sessionId: 'imported', events });
    for (const sessionId of ['s', 'imported']) {
      const rows = await storedAndGenerated(schema, sessionId);
      expect(rows.length).toBeGreaterThanOrEqual(events.length);
      for (const row of rows)
        expect({ seq: row.seq, search: row.stored }).toEqual({
          seq: row.seq,
          search: row.generated,
        });
    }
    const compaction = (await storedAndGenerated(schema, 's')).at(-1);
    expect(compaction?.stored).toBeNull();
    const hits = await service.searchEvents({ appName: 'a', userId: 'u', query: 'tilde' });
    expect(hits.map((hit) => hit.sessionId).sort()).toEqual(['imported', 's']);
    await service.close();
  });

  it('fills the column of a row inserted without it (an older writer)', async () => {
    const schema = fixture.newSchema();
    const service = new PostgresSessionService({ pool: fixture.pool, schema });
    await service.createSession(key);
    const event = userTextEvent({ id: 'e1', text: 'an older writer wrote the pelican' });
    await fixture.pool.query(
      `INSERT INTO "${schema}".orrery_events (app_name, user_id, session_id, seq, event_id,
         invocation_id, author, timestamp, is_compaction, event)
       VALUES ('a', 'u', 's', 1, 'e1', 'i1', 'user', 1700000001, false, $1::json)`,
      [JSON.stringify(event)],
    );
    await fixture.pool.query(
      `UPDATE "${schema}".orrery_sessions SET last_seq = 1, event_count = 1 WHERE id = 's'`,
    );
    const [row] = await storedAndGenerated(schema, 's');
    expect(row?.stored).toBe(row?.generated);
    expect(row?.stored).toContain("'pelican'");
    expect(
      (await service.searchEvents({ ...key, query: 'pelican' })).map((hit) => hit.seq),
    ).toEqual([1]);
    await service.close();
  });

  it('keeps the values of a version 6 schema and stops generating them', async () => {
    const schema = fixture.newSchema();
    await migrate({
      pool: fixture.pool,
      schema,
      migrations: migrations.filter((migration) => migration.version <= 6),
    });
    await fixture.pool.query(
      `INSERT INTO "${schema}".orrery_sessions (app_name, user_id, id, last_seq, event_count,
         created_at, updated_at) VALUES ('a', 'u', 's', 1, 1, 0, 0)`,
    );
    await fixture.pool.query(
      `INSERT INTO "${schema}".orrery_events (app_name, user_id, session_id, seq, event_id,
         invocation_id, author, timestamp, is_compaction, event)
       VALUES ('a', 'u', 's', 1, 'e1', 'i1', 'user', 1700000001, false, $1::json)`,
      [JSON.stringify(userTextEvent({ text: 'the generated heron' }))],
    );
    const before = await storedAndGenerated(schema, 's');
    await migrate({ pool: fixture.pool, schema });
    expect(await storedAndGenerated(schema, 's')).toEqual(before);
    const generated = await fixture.pool.query<{ attgenerated: string }>(
      `SELECT attgenerated FROM pg_attribute
        WHERE attrelid = $1::regclass AND attname = 'search'`,
      [`"${schema}".orrery_events`],
    );
    expect(generated.rows[0]?.attgenerated).toBe('');
  });
});
