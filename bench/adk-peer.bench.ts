/**
 * orrery beside Google's ADK for TypeScript (`@google/adk` 2.0.0) in the same run: a whole
 * Runner turn before the model on the same sessions (the shared realistic turns, 1k / 10k / 100k
 * events), in memory and on SQLite, and the full `getSession` ADK's Runner does on every turn.
 * orrery's sessions carry its rolling compaction every 1,000 events (what its Runner writes);
 * ADK's carry the raw events (ADK-JS's Runner does not compact by default). ADK's 100k turns take
 * seconds each, so they run fewer times: `turns` below. `npm run bench -- adk` runs it alone.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InMemorySessionService } from '../src/sessions/in-memory-session-service.js';
import type { SessionService } from '../src/sessions/session-service.js';
import { SqliteSessionService } from '../src/sessions/sqlite/index.js';
import { adkGetSessionTimes, adkTurnTimes, seedAdkMemory, seedAdkSqlite } from './adk-session.js';
import { seed, turnTimes } from './runner-turn.bench.js';

/** ADK turns and full loads per size: fewer where one takes seconds. orrery runs 30 turns. */
const sizes = [
  { events: 1_000, adkTurns: 10, adkLoads: 5 },
  { events: 10_000, adkTurns: 5, adkLoads: 3 },
  { events: 100_000, adkTurns: 2, adkLoads: 1 },
];

interface Row {
  backend: 'memory' | 'SQLite';
  events: number;
  orrery: number;
  adk: number;
  adkGetSession?: number;
}

async function orreryTurn(backend: Row['backend'], directory: string, events: number) {
  const service: SessionService =
    backend === 'memory'
      ? new InMemorySessionService()
      : new SqliteSessionService({ path: join(directory, `orrery-${events}.db`) });
  const sessionId = `session-${events}`;
  await seed(service, sessionId, events);
  const median = await turnTimes(service, sessionId);
  await service.close?.();
  return median;
}

async function adkTurn(backend: Row['backend'], directory: string, size: (typeof sizes)[number]) {
  const { events, adkTurns: turns } = size;
  if (backend === 'memory') {
    const { service, sessionId } = await seedAdkMemory(events);
    return { turn: await adkTurnTimes({ service, sessionId, turns }) };
  }
  const { service, sessionId } = await seedAdkSqlite(join(directory, `adk-${events}.db`), events);
  try {
    const getSession = await adkGetSessionTimes({ service, sessionId, runs: size.adkLoads });
    return { turn: await adkTurnTimes({ service, sessionId, turns }), getSession };
  } finally {
    await closeAdk(service);
  }
}

async function closeAdk(service: object): Promise<void> {
  const { orm } = service as { orm?: { close(force?: boolean): Promise<void> } };
  await orm?.close(true);
}

function format(value: number): string {
  return value >= 100
    ? value.toLocaleString('en-US', { maximumFractionDigits: 0 })
    : value.toFixed(value >= 10 ? 1 : 2);
}

function print(rows: Row[]): void {
  const lines = [
    '| backend | events | orrery turn (ms) | ADK-JS turn (ms) | orrery / ADK | ADK / orrery | ADK getSession (ms) |',
    '|---|---:|---:|---:|---:|---:|---:|',
  ];
  for (const row of rows) {
    lines.push(
      `| ${row.backend} | ${row.events.toLocaleString('en-US')} | ${format(row.orrery)} | ${format(row.adk)} | ${(row.orrery / row.adk).toPrecision(2)} | ${format(row.adk / row.orrery)}x | ${row.adkGetSession === undefined ? '—' : format(row.adkGetSession)} |`,
    );
  }
  console.log(lines.join('\n'));
  console.log(
    `\nMedian of 30 orrery turns, of ${sizes.map((size) => size.adkTurns).join(' / ')} ADK turns and of ${sizes.map((size) => size.adkLoads).join(' / ')} ADK full loads at ${sizes.map((size) => size.events.toLocaleString('en-US')).join(' / ')} events; both Runners call a stub model that answers at once.`,
  );
}

export async function run(): Promise<void> {
  const directory = mkdtempSync(join(tmpdir(), 'orrery-bench-adk-'));
  const rows: Row[] = [];
  try {
    for (const backend of ['memory', 'SQLite'] as const) {
      for (const size of sizes) {
        const { events } = size;
        const orrery = await orreryTurn(backend, directory, events);
        const adk = await adkTurn(backend, directory, size);
        rows.push({ backend, events, orrery, adk: adk.turn, adkGetSession: adk.getSession });
      }
    }
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
  print(rows);
}
