/**
 * PostgreSQL store: the active view (checkpoint + tail) loads in the same time whatever the
 * history length, next to the full-history load an ADK-style store does every turn; plus append
 * throughput for one session and for 16 sessions written concurrently, with the server's commit
 * setting and with `synchronousCommit: 'off'`.
 *
 * Sessions hold realistic turns (user message, model function call, ~1.5 KB function response,
 * model answer) with a rolling compaction every 1000 events that keeps the last 200 raw. The
 * histories are seeded with a bulk `unnest` insert of exactly the rows the service writes
 * (`toEventRowValues`), then checked through the service. Runs in its own schema, dropped after.
 */
import { randomBytes } from 'node:crypto';
import type { Pool } from 'pg';
import type { NewEvent, SessionKey } from '../src/events/types.js';
import { PostgresSessionService } from '../src/sessions/postgres/index.js';
import { quoteIdentifier } from '../src/sessions/postgres/migrations.js';
import { toEventRowValues } from '../src/sessions/postgres/rows.js';
import { postgresSearchText } from '../src/sessions/postgres/search-column.js';
import { compactionEvent, printViewTargets, time, turnEvent } from './workload.js';

const sizes = [1_000, 10_000, 100_000];
const compactionEvery = 1_000;
const retained = 200;
const batchSize = 2_000;

/** The session's events in append order: raw turns, a compaction after every 1000. */
function* history(count: number): Generator<NewEvent> {
  let seq = 0;
  for (let raw = 0; raw < count; raw++) {
    yield turnEvent(raw);
    seq++;
    if ((raw + 1) % compactionEvery === 0) {
      yield compactionEvent(seq - retained);
      seq++;
    }
  }
}

/** Bulk insert of the rows the service would write, then the session counters. */
export async function seed(
  pool: Pool,
  schema: string,
  key: SessionKey,
  count: number,
): Promise<number> {
  const table = `${quoteIdentifier(schema)}.orrery_events`;
  let seq = 0;
  let batch: { seq: number; event: NewEvent }[] = [];
  const flush = async () => {
    if (batch.length === 0) return;
    const rows = batch.map((entry) => ({ seq: entry.seq, ...toEventRowValues(entry.event) }));
    await pool.query(
      `INSERT INTO ${table} (app_name, user_id, session_id, seq, event_id, invocation_id, author,
         timestamp, is_compaction, compaction_start_seq, compaction_end_seq, event, search)
       SELECT $1, $2, $3, seq, id, invocation, author, at, compaction, start_seq, end_seq,
         event, to_tsvector('simple'::regconfig, search)
       FROM unnest($4::bigint[], $5::text[], $6::text[], $7::text[], $8::float8[],
         $9::boolean[], $10::bigint[], $11::bigint[], $12::json[], $13::text[])
         AS batch (seq, id, invocation, author, at, compaction, start_seq, end_seq, event,
           search)`,
      [
        key.appName,
        key.userId,
        key.sessionId,
        rows.map((row) => row.seq),
        rows.map((row) => row.stored.id),
        rows.map((row) => row.stored.invocationId),
        rows.map((row) => row.stored.author),
        rows.map((row) => row.stored.timestamp),
        rows.map((row) => row.isCompaction),
        rows.map((row) => row.compactionStartSeq),
        rows.map((row) => row.compactionEndSeq),
        rows.map((row) => row.json),
        rows.map((row) => postgresSearchText(row.stored, row.json)),
      ],
    );
    batch = [];
  };
  for (const event of history(count)) {
    batch.push({ seq: ++seq, event });
    if (batch.length >= batchSize) await flush();
  }
  await flush();
  await pool.query(
    `UPDATE ${quoteIdentifier(schema)}.orrery_sessions SET last_seq = $4, event_count = $4,
       updated_at = $5, updated_minute = floor($5::double precision / 60) WHERE app_name = $1 AND user_id = $2 AND id = $3`,
    [key.appName, key.userId, key.sessionId, seq, Date.now() / 1000],
  );
  await pool.query(`ANALYZE ${table}`);
  return seq;
}

/** `ORRERY_BENCH_EXPLAIN=1`: prints the plan of the view statement the service runs. */
async function explain(pool: Pool, schema: string, key: SessionKey): Promise<void> {
  const { buildQueries } = await import('../src/sessions/postgres/queries.js');
  const plan = await pool.query(`EXPLAIN (ANALYZE, BUFFERS) ${buildQueries(schema).view}`, [
    key.appName,
    key.userId,
    key.sessionId,
    '{}',
  ]);
  console.log(plan.rows.map((row) => row['QUERY PLAN']).join('\n'));
}

async function appendThroughput(service: PostgresSessionService, sessions: number, label = '') {
  const perSession = sessions === 1 ? 2_000 : 250;
  const keys = Array.from({ length: sessions }, (_, index) => ({
    appName: 'bench',
    userId: `user-${index % 4}`,
    sessionId: `append-${label}${sessions}-${index}`,
  }));
  for (const key of keys) await service.createSession(key);
  const start = performance.now();
  await Promise.all(
    keys.map(async (key) => {
      for (let index = 0; index < perSession; index++) {
        await service.appendEvent({ ...key, event: turnEvent(index) });
      }
    }),
  );
  return (sessions * perSession) / ((performance.now() - start) / 1000);
}

export async function run(options: { postgresUrl?: string }): Promise<void> {
  if (!options.postgresUrl) {
    console.log(
      'skipped: set ORRERY_TEST_PG_URL (or ORRERY_BENCH_PG_URL), e.g. ORRERY_TEST_PG_URL=postgres://postgres@127.0.0.1:5432/test npx tsx bench/run.ts postgres',
    );
    return;
  }
  const { default: pg } = await import('pg');
  const pool = new pg.Pool({ connectionString: options.postgresUrl, max: 17 });
  const schema = `orrery_bench_${randomBytes(6).toString('hex')}`;
  const service = new PostgresSessionService({ pool, schema });
  try {
    const rows: { size: number; stored: number; tail: number; view: number; full: number }[] = [];
    for (const size of sizes) {
      const key = { appName: 'bench', userId: 'user', sessionId: `history-${size}` };
      await service.createSession(key);
      const stored = await seed(pool, schema, key, size);
      // The seeded rows read back through the service as the service's own writes would.
      const view = await service.loadView(key);
      const expectedEnd = size - retained + Math.floor(size / compactionEvery) - 1;
      if (view.lastSeq !== stored || view.checkpoint?.actions.compaction.endSeq !== expectedEnd) {
        throw new Error(`seeded session ${size} does not read back as expected`);
      }
      if (process.env.ORRERY_BENCH_EXPLAIN) await explain(pool, schema, key);
      const viewMs = await time(30, () => service.loadView(key));
      const fullMs = await time(size >= 100_000 ? 3 : 7, () =>
        service.getSession({ ...key, events: 'full' }),
      );
      rows.push({ size, stored, tail: view.tail.length, view: viewMs, full: fullMs });
    }

    console.log(
      '| raw events | stored rows | view events (checkpoint + tail) | loadView median ms | full-history median ms | full / view |',
    );
    console.log('| ---: | ---: | ---: | ---: | ---: | ---: |');
    for (const row of rows) {
      console.log(
        `| ${row.size} | ${row.stored} | 1 + ${row.tail} | ${row.view.toFixed(2)} | ${row.full.toFixed(1)} | ${(row.full / row.view).toFixed(0)}x |`,
      );
    }
    printViewTargets(rows);

    const single = await appendThroughput(service, 1);
    const concurrent = await appendThroughput(service, 16);
    // The same appends acknowledged before their WAL flush (an explicit durability choice).
    const asynchronous = new PostgresSessionService({ pool, schema, synchronousCommit: 'off' });
    const singleAsync = await appendThroughput(asynchronous, 1, 'async-');
    const concurrentAsync = await appendThroughput(asynchronous, 16, 'async-');
    await asynchronous.close();
    console.log(
      "\n| append throughput (realistic turn events), events/s | default | `synchronousCommit: 'off'` |",
    );
    console.log('| --- | ---: | ---: |');
    console.log(
      `| 1 session, sequential appends | ${Math.round(single)} | ${Math.round(singleAsync)} |`,
    );
    console.log(
      `| 16 sessions written concurrently (16 connections) | ${Math.round(concurrent)} | ${Math.round(concurrentAsync)} |`,
    );
  } finally {
    await pool.query(`DROP SCHEMA IF EXISTS ${quoteIdentifier(schema)} CASCADE`);
    await service.close();
    await pool.end();
  }
}
