/**
 * Where a warm quiet turn's CPU goes: a session of `events` events (the runner-turn bench's
 * history, a compaction every 1,000) in memory or on SQLite, `warmUp` turns, then `turns` quiet
 * turns (a stub model, no compaction) under the V8 profiler.
 * `node --import tsx bench/quiet-turn-profile.ts memory|sqlite|sqlite-exclusive [events] [turns] [profile-file]`
 * prints the CPU ms per warm turn and writes the profile (summarize it with
 * `node bench/profile-top.mjs <profile> 25`); a profile file `-` runs without the profiler (the
 * CPU figure alone, without the profiler's overhead).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LlmAgent } from '../src/runtime/agents/llm-agent.js';
import { Runner } from '../src/runtime/turn/runner.js';
import { InMemorySessionService } from '../src/sessions/in-memory-session-service.js';
import type { SessionService } from '../src/sessions/session-service.js';
import { SqliteSessionService } from '../src/sessions/sqlite/index.js';
import { DigestSummarizer } from '../src/summarizers/index.js';
import { textResponse } from '../src/testing/scripted-model.js';
import { seed } from './runner-turn.bench.js';

const backends = ['memory', 'sqlite', 'sqlite-exclusive'] as const;
const backend = backends.find((name) => name === process.argv[2]) ?? 'memory';
const events = Number(process.argv[3] ?? 100_000);
const turns = Number(process.argv[4] ?? 300);
const profileFile = process.argv[5] ?? `quiet-turn-${backend}.cpuprofile`;
const warmUp = 30;

const directory = mkdtempSync(join(tmpdir(), 'orrery-quiet-turn-'));
const service: SessionService =
  backend === 'memory'
    ? new InMemorySessionService()
    : new SqliteSessionService({
        path: join(directory, 'turn.db'),
        exclusive: backend === 'sqlite-exclusive',
      });
try {
  await seed(service, 'session', events);
  const runner = new Runner({
    appName: 'bench',
    agent: new LlmAgent({
      name: 'agent',
      model: {
        modelId: 'stub',
        contextWindowTokens: 1_000_000,
        generate: async () =>
          textResponse('ok', { promptTokenCount: 9_000, candidatesTokenCount: 1 }),
      },
    }),
    sessionService: service,
    // Never due within the run: every turn is quiet (the tail grows by 2 events a turn).
    compaction: {
      tokenThreshold: 10_000_000,
      eventRetentionSize: 10,
      compactionInterval: 1_000_000,
      overlapSize: 1,
      summarizer: new DigestSummarizer(),
    },
    logger: false,
  });
  const turn = async (): Promise<void> => {
    for await (const event of runner.run({
      userId: 'user',
      sessionId: 'session',
      newMessage: 'next',
    })) {
      if (event.actions.compaction) throw new Error('a turn compacted: not a quiet turn');
    }
  };
  for (let index = 0; index < warmUp; index++) await turn();
  const profiling = profileFile !== '-';
  const inspector = new Session();
  if (profiling) {
    inspector.connect();
    await inspector.post('Profiler.enable');
    await inspector.post('Profiler.start');
  }
  const started = process.cpuUsage();
  for (let index = 0; index < turns; index++) await turn();
  const used = process.cpuUsage(started);
  if (profiling) {
    const { profile } = await inspector.post('Profiler.stop');
    writeFileSync(profileFile, JSON.stringify(profile));
    inspector.disconnect();
  }
  console.log(
    `${backend}, ${events} events, ${turns} warm quiet turns: ${((used.user + used.system) / 1000 / turns).toFixed(3)} CPU ms per turn${profiling ? ` (profiled); profile: ${profileFile}` : ''}`,
  );
} finally {
  await service.close?.();
  rmSync(directory, { recursive: true, force: true });
}
