/**
 * Memory across sessions on every store: `evaluateMemory` (each conversation split into four
 * sessions of one user, each question asked of `searchMemory`, top 5) over the generated
 * conversations and every `$ORRERY_DATASETS/<name>/probes.derived.jsonl`, in memory, SQLite
 * (`:memory:`) and, with `ORRERY_TEST_PG_URL`, PostgreSQL (a schema per conversation, dropped
 * at the end). Prints answers in the top 5 and evidence recall@5 per store and input.
 *
 *   ORRERY_DATASETS=../shared/datasets ORRERY_TEST_PG_URL=postgres://postgres@127.0.0.1:5432/test \
 *     npx tsx scripts/memory-eval-stores.ts
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { loadProbes } from '../src/cli/eval-probes.js';
import {
  combineMemoryEvaluations,
  evaluateMemory,
  type MemoryEvaluation,
} from '../src/runtime/eval/memory-eval.js';
import type { RecallConversation } from '../src/runtime/eval/recall-eval.js';
import { InMemorySessionService } from '../src/sessions/in-memory-session-service.js';
import { PostgresSessionService } from '../src/sessions/postgres/postgres-session-service.js';
import type { SessionService } from '../src/sessions/session-service.js';
import { SqliteSessionService } from '../src/sessions/sqlite/sqlite-session-service.js';
import { generateRecallConversations } from '../src/testing/recall-conversations.js';

const datasets = process.env.ORRERY_DATASETS;
const pgUrl = process.env.ORRERY_TEST_PG_URL;
const groups: Array<{ label: string; conversations: RecallConversation[] }> = [
  {
    label: 'generated (seed 1)',
    conversations: generateRecallConversations({ seed: 1, conversations: 3 }),
  },
];
for (const name of datasets ? readdirSync(datasets).sort() : []) {
  const file = join(datasets ?? '', name, 'probes.derived.jsonl');
  if (existsSync(file)) groups.push({ label: name, conversations: await loadProbes(file) });
}

const schemas: string[] = [];
const stores: Array<[string, (index: number) => SessionService]> = [
  ['memory', () => new InMemorySessionService()],
  ['sqlite', () => new SqliteSessionService({ path: ':memory:' })],
];
if (pgUrl) {
  stores.push([
    'postgres',
    (index) => {
      const schema = `memory_eval_${process.pid}_${index}`;
      schemas.push(schema);
      return new PostgresSessionService({ connectionString: pgUrl, schema });
    },
  ]);
}

let index = 0;
try {
  for (const [store, make] of stores) {
    for (const group of groups) {
      const results: MemoryEvaluation[] = [];
      for (const conversation of group.conversations) {
        const sessionService = make(index++);
        try {
          results.push(
            await evaluateMemory({ conversation, sessions: 4, topK: 5, sessionService }),
          );
        } finally {
          await sessionService.close?.();
        }
      }
      const total = combineMemoryEvaluations(results);
      console.log(
        `${store.padEnd(9)} ${group.label.padEnd(22)} answers in top 5 ${(total.inMemory * 100).toFixed(1)}%  evidence recall@5 ${(total.recallAtK * 100).toFixed(1)}%`,
      );
    }
  }
} finally {
  if (pgUrl && schemas.length > 0) {
    const client = new pg.Client({ connectionString: pgUrl });
    await client.connect();
    for (const schema of schemas) await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await client.end();
  }
}
