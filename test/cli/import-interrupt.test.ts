/**
 * `orrery import` stopped part-way (SIGKILL, SIGTERM, SIGINT) leaves no session, in SQLite and
 * PostgreSQL, and the same import then succeeds whole. The process is the real one (node with
 * the tsx loader, one process, so the signal reaches orrery itself); it is signalled once its
 * `--verbose` progress shows the first 1000 events written inside the transaction.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import type { SessionService } from '../../src/index.js';
import { PostgresSessionService } from '../../src/sessions/postgres/index.js';
import {
  describePostgres,
  useSchemaFixture,
} from '../../src/sessions/postgres/test-helpers/pg-test-env.js';
import { SqliteSessionService } from '../../src/sessions/sqlite/index.js';
import { cli, tempDir } from './in-process.js';
import { root } from './run-cli.js';

const EVENTS = 20_001;
const SIGNALS = ['SIGKILL', 'SIGTERM', 'SIGINT'] as const;
/** Bounds a hang only: a healthy run takes a few seconds. */
const DEADLINE_MS = 120_000;

/** A Claude Code session of `EVENTS` events: a question, then call / result pairs. */
function writeTranscript(directory: string): string {
  const at = (index: number) => new Date(Date.UTC(2025, 0, 1) + index * 1000).toISOString();
  const lines = [
    JSON.stringify({
      type: 'user',
      sessionId: 'big',
      timestamp: at(0),
      message: { role: 'user', content: 'start' },
    }),
  ];
  for (let index = 1; index < EVENTS; index += 2) {
    const id = `toolu_${index}`;
    lines.push(
      JSON.stringify({
        type: 'assistant',
        timestamp: at(index),
        message: {
          id: `msg_${index}`,
          role: 'assistant',
          content: [{ type: 'tool_use', id, name: 'Bash', input: { command: `echo ${index}` } }],
        },
      }),
      JSON.stringify({
        type: 'user',
        timestamp: at(index + 1),
        message: {
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: id, content: `output ${index} ` }],
        },
      }),
    );
  }
  const file = join(directory, 'big.jsonl');
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

interface Interrupted {
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
}

/** Spawns the import and sends `signal` once the first progress line is out. */
function importAndInterrupt(options: {
  args: string[];
  signal: (typeof SIGNALS)[number];
}): Promise<Interrupted> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !key.startsWith('ORRERY_')) env[key] = value;
  }
  const child: ChildProcess = spawn(
    process.execPath,
    [
      '--import',
      pathToFileURL(join(root, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href,
      join(root, 'src', 'cli', 'entry.ts'),
      ...options.args,
      '--verbose',
    ],
    { cwd: tempDir(), env, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  return new Promise((resolve, reject) => {
    let stderr = '';
    let sent = false;
    const deadline = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the import did not end within ${DEADLINE_MS} ms; stderr: ${stderr}`));
    }, DEADLINE_MS);
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (chunk: string) => {
      stderr += chunk;
      if (!sent && /importing big\.jsonl: \d+\/20001 events/.test(stderr)) {
        sent = true;
        child.kill(options.signal);
      }
    });
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      clearTimeout(deadline);
      resolve({ code, signal, stderr });
    });
  });
}

function describeInterruptedImports(options: {
  name: string;
  db: () => string;
  open: () => SessionService;
}): void {
  describe(`orrery import interrupted (${options.name})`, () => {
    const directory = tempDir();
    const file = writeTranscript(directory);
    const appName = `interrupt-${randomBytes(4).toString('hex')}`;
    const userId = 'local';
    const service = options.open();
    afterAll(async () => {
      for (const signal of SIGNALS) {
        await service.deleteSession({ appName, userId, sessionId: `big-${signal}` });
      }
      await service.close?.();
    });

    for (const signal of SIGNALS) {
      it(
        `leaves no session after ${signal}, and the re-run imports all ${EVENTS} events`,
        async () => {
          const sessionId = `big-${signal}`;
          const args = [
            'import',
            file,
            '--db',
            options.db(),
            '--app',
            appName,
            '--session',
            sessionId,
          ];
          const result = await importAndInterrupt({ args, signal });
          // It was stopped mid-import: never a complete run that exited 0.
          expect(result.stderr).toMatch(/importing big\.jsonl: 1000\/20001 events/);
          expect(result.stderr).not.toMatch(/20001\/20001/);
          if (signal === 'SIGKILL') {
            expect(result.signal).toBe('SIGKILL');
          } else {
            expect(result.code).toBe(1);
            expect(result.stderr).toContain(
              `orrery: InterruptedError: ${signal} received: the import of big.jsonl was stopped and rolled back; no session of it was stored\n`,
            );
          }
          expect(await service.listSessions({ appName, userId })).toEqual([]);
          expect(await service.getSession({ appName, userId, sessionId })).toBeUndefined();

          const rerun = await cli([...args, '--json']);
          expect(rerun.stderr).toBe('');
          expect(rerun.code).toBe(0);
          expect(JSON.parse(rerun.stdout)).toMatchObject({ sessionId, events: EVENTS });
          const listed = await service.listSessions({ appName, userId });
          expect(listed.map((summary) => [summary.sessionId, summary.eventCount])).toEqual([
            [sessionId, EVENTS],
          ]);
          await service.deleteSession({ appName, userId, sessionId });
        },
        DEADLINE_MS,
      );
    }
  });
}

const sqliteFile = join(tempDir(), 'interrupt.db');
describeInterruptedImports({
  name: 'SQLite',
  db: () => sqliteFile,
  open: () => new SqliteSessionService({ path: sqliteFile }),
});

describePostgres('orrery import interrupted', (url) => {
  // A schema of its own (`?schema=`), dropped afterwards: never the shared database's `public`.
  const fixture = useSchemaFixture(url);
  const storeUrl = new URL(url);
  storeUrl.searchParams.set('schema', fixture.schema);
  describeInterruptedImports({
    name: 'PostgreSQL',
    db: () => storeUrl.toString(),
    open: () => new PostgresSessionService({ connectionString: url, schema: fixture.schema }),
  });
});
