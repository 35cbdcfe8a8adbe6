/**
 * PostgreSQL search on real transcripts at 100k events (not a `*.bench.ts`): the public runs of
 * `$ORRERY_DATASETS` (tau-bench airline, OpenHands) imported with orrery's own importers and
 * repeated, in order, until one session holds 100,000 events, kept in `ORRERY_PROBE_SCHEMA`
 * (default `pgrank_real`); the questions are the datasets' derived probes. Where the synthetic
 * corpus (postgres-search-probe.ts) draws every question word from the mid-frequency band,
 * these are the words of real questions over real tool output.
 *
 *   ORRERY_DATASETS=../shared/datasets ORRERY_TEST_PG_URL=... npx tsx bench/postgres-search-real.ts populate
 *   ... npx tsx bench/postgres-search-real.ts cpu   (backend CPU cold/warm and wall time, p50/p95;
 *       ORRERY_PROBE_SRC=<src> measures another tree)
 *   ... npx tsx bench/postgres-search-real.ts explain   (each question's statement, EXPLAIN ANALYZE)
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import type { NewEvent } from '../src/events/types.js';
import { importOpenAiChatRun, openAiChatRuns } from '../src/importers/openai-chat.js';
import type { PostgresSessionService } from '../src/sessions/postgres/index.js';
import { captureSearchStatements } from './search-statements.js';

const url = process.env.ORRERY_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const schema = process.env.ORRERY_PROBE_SCHEMA ?? 'pgrank_real';
const datasets = process.env.ORRERY_DATASETS;
const EVENTS = 100_000;
const key = { appName: 'bench', userId: 'u', sessionId: 'real' };
const [mode = 'cpu'] = process.argv.slice(2);

if (!datasets) throw new Error('ORRERY_DATASETS: set it to the folder of the public transcripts');
const folder = datasets;

function runsEvents(): NewEvent[] {
  const files = [
    join(folder, 'tau-bench-airline/gpt-4o-airline.json'),
    ...readdirSync(join(folder, 'openhands-swe-bench/llm_completions')).map((name) =>
      join(folder, 'openhands-swe-bench/llm_completions', name),
    ),
  ];
  return files.flatMap((file) =>
    openAiChatRuns(readFileSync(file, 'utf8')).flatMap((run) => importOpenAiChatRun(run).events),
  );
}

/**
 * Each probe's question, and for a probe whose answer is a string (an id, a name, a path) a
 * question about that answer too, as an agent would ask it back ("What do we know about X?").
 */
function questions(): string[] {
  return ['tau-bench-airline', 'openhands-swe-bench'].flatMap((name) =>
    readFileSync(join(folder, name, 'probes.derived.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .flatMap((line) => {
        const probe = JSON.parse(line) as { question: string; answer?: unknown };
        return typeof probe.answer === 'string' && probe.answer.length < 80
          ? [probe.question, `What do we know about ${probe.answer}?`]
          : [probe.question];
      }),
  );
}

const pool = new pg.Pool({ connectionString: url, max: 1 });
// `ORRERY_PROBE_SRC`: the `src` folder of another tree to measure (default this one's).
const source = resolve(process.env.ORRERY_PROBE_SRC ?? resolve(import.meta.dirname, '../src'));
const { PostgresSessionService: Service } = (await import(
  pathToFileURL(join(source, 'sessions/postgres/index.ts')).href
)) as typeof import('../src/sessions/postgres/index.js');
const store: PostgresSessionService = new Service({ pool, schema, queryTimeoutMs: 600_000 });

async function populate(): Promise<void> {
  const source = runsEvents();
  const events = Array.from({ length: EVENTS }, (_, index) => {
    const event = source[index % source.length]!;
    // Each copy its own ids; time moves on as in one long session.
    return {
      ...event,
      id: `e${index}`,
      invocationId: `i${index}`,
      timestamp: 1_700_000_000 + index,
    };
  });
  await store.importSession!({ ...key, events });
  await pool.query(`VACUUM ANALYZE "${schema}".orrery_events`);
  console.log(`${EVENTS} events from ${source.length} distinct ones`);
}

function percentile(values: number[], share: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * share))]!;
}

async function backendCpu(): Promise<void> {
  const { pid } = (await pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!;
  const cpuMs = () => Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
  await store.searchEvents!({ ...key, query: 'warm up' });
  const asked = [...new Set(questions())];
  const cold: number[] = [];
  const warm: number[] = [];
  const wall: number[] = [];
  for (const query of asked) {
    for (const list of [cold, warm]) {
      const before = cpuMs();
      const start = performance.now();
      await store.searchEvents!({ ...key, query, limit: 5 });
      if (list === cold) wall.push(performance.now() - start);
      list.push(cpuMs() - before);
    }
  }
  const row = (values: number[]) =>
    `${percentile(values, 0.5).toFixed(2)} / ${percentile(values, 0.95).toFixed(2)}`;
  console.log(`${asked.length} distinct questions; p50 / p95 ms`);
  console.log(`| backend CPU, cold | ${row(cold)} |\n| backend CPU, warm | ${row(warm)} |`);
  console.log(`| wall, cold | ${row(wall)} |`);
}

async function explain(): Promise<void> {
  const captured = captureSearchStatements();
  for (const query of new Set(questions())) {
    captured.length = 0;
    await store.searchEvents!({ ...key, query, limit: 5 });
    for (const statement of captured) {
      const plan = await pool.query(
        `EXPLAIN (ANALYZE, BUFFERS) ${statement.text}`,
        statement.values,
      );
      console.log(`\n### ${query}\n${JSON.stringify(statement.values.slice(13))}`);
      console.log(plan.rows.map((row) => row['QUERY PLAN']).join('\n'));
    }
  }
}

try {
  if (mode === 'populate') await populate();
  else if (mode === 'explain') await explain();
  else await backendCpu();
} finally {
  await store.close();
  await pool.end();
}
