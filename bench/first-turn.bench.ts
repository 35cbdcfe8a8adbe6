/**
 * `npm run bench -- first-turn`: the first turn after an import, on a SQLite session that was
 * never compacted (50k and 100k events of the shared workload, stored by `importSession`): the
 * view load, the token trigger, the whole backlog summarized by `DigestSummarizer` and appended,
 * then the stub model's answer. CPU ms of the turn (user + system, which waiting for a core on a
 * busy machine does not inflate) and wall ms, and the 100k / 50k ratio (linear: about 2).
 * `ORRERY_BENCH_FIRST_TURN_SIZES=20000,50000` picks the sizes.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { LlmAgent } from '../src/runtime/agents/llm-agent.js';
import { Runner } from '../src/runtime/turn/runner.js';
import { SqliteSessionService } from '../src/sessions/sqlite/index.js';
import { DigestSummarizer } from '../src/summarizers/index.js';
import { textResponse } from '../src/testing/scripted-model.js';
import { turnEvent } from './workload.js';

const sizes = (process.env.ORRERY_BENCH_FIRST_TURN_SIZES ?? '50000,100000').split(',').map(Number);

async function firstTurn(directory: string, size: number) {
  const service = new SqliteSessionService({ path: join(directory, `first-turn-${size}.db`) });
  function* events() {
    for (let index = 0; index < size; index++) yield turnEvent(index);
  }
  await service.importSession({
    appName: 'bench',
    userId: 'user',
    sessionId: 'imported',
    events: events(),
  });
  const runner = new Runner({
    appName: 'bench',
    agent: new LlmAgent({
      name: 'agent',
      model: {
        modelId: 'stub',
        contextWindowTokens: 1_000_000,
        generate: async () =>
          textResponse('ok', { promptTokenCount: 900, candidatesTokenCount: 1 }),
      },
    }),
    sessionService: service,
    compaction: {
      tokenThreshold: 100_000,
      eventRetentionSize: 10,
      summarizer: new DigestSummarizer(),
    },
    logger: false,
  });
  const load = loadavg()[0] ?? 0;
  const cpu = process.cpuUsage();
  const started = performance.now();
  const reports: string[] = [];
  for await (const _event of runner.run({
    userId: 'user',
    sessionId: 'imported',
    newMessage: 'next',
  })) {
    // drained
  }
  const wall = performance.now() - started;
  const used = process.cpuUsage(cpu);
  const view = await service.loadView({ appName: 'bench', userId: 'user', sessionId: 'imported' });
  reports.push(`checkpoint through seq ${view.checkpoint?.actions.compaction.endSeq ?? 'none'}`);
  await service.close();
  return { cpu: (used.user + used.system) / 1000, wall, load, note: reports.join('; ') };
}

export async function run(): Promise<void> {
  const directory = mkdtempSync(join(tmpdir(), 'orrery-bench-first-turn-'));
  const rows: { size: number; cpu: number; wall: number; load: number; note: string }[] = [];
  try {
    for (const size of sizes) rows.push({ size, ...(await firstTurn(directory, size)) });
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
  console.log('| events (never compacted) | CPU ms | wall ms | load average | after the turn |');
  console.log('|---:|---:|---:|---:|---|');
  for (const row of rows) {
    console.log(
      `| ${row.size} | ${row.cpu.toFixed(0)} | ${row.wall.toFixed(0)} | ${row.load.toFixed(1)} | ${row.note} |`,
    );
  }
  const [first, last] = [rows[0], rows.at(-1)];
  if (first && last && last !== first) {
    console.log(
      `\n${last.size} / ${first.size} events: CPU ${(last.cpu / first.cpu).toFixed(2)}x (linear: ${(last.size / first.size).toFixed(2)}x).`,
    );
  }
}
