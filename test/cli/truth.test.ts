/**
 * The command line tells the truth: flags do what they say, a fallback summary is credited to
 * the fallback, bad settings are refused before anything is written, and counts read right.
 */
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, tempDir } from './in-process.js';
import { orrery, root, scratch } from './run-cli.js';

const incident = join(root, 'examples', 'incident-session.jsonl');

interface ReplayJson {
  compactions: Array<{
    trigger: string;
    summarizer: string;
    fallback?: { from: string; reason?: string };
  }>;
  maxViewTokens: number;
  maxViewBytes: number;
  orphans: number;
  lossless: boolean;
}

async function json<T>(args: string[], env: Record<string, string> = {}): Promise<T> {
  const result = await cli(args, { env });
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  return JSON.parse(result.stdout) as T;
}

/** One short conversation in a file: a session of exactly one event when imported. */
function oneMessage(directory: string): string {
  const file = join(directory, 'one.json');
  writeFileSync(file, JSON.stringify([{ role: 'user', content: 'hi' }]));
  return file;
}

describe('replay --max-request-bytes', () => {
  it('holds every replayed request under the byte ceiling, as the Runner does', async () => {
    const unbounded = await json<ReplayJson>([
      'replay',
      incident,
      '--threshold',
      '1000000',
      '--json',
    ]);
    expect(unbounded.compactions).toEqual([]);
    expect(unbounded.maxViewTokens).toBe(151_721);
    expect(unbounded.maxViewBytes).toBeGreaterThan(400_000);

    const bounded = await json<ReplayJson>([
      'replay',
      incident,
      '--threshold',
      '1000000',
      '--max-request-bytes',
      '20000',
      '--json',
    ]);
    // The ceiling, not the (unreachable) threshold, compacted: the guard's overflow path.
    expect(bounded.compactions.length).toBeGreaterThan(0);
    expect(new Set(bounded.compactions.map((compaction) => compaction.trigger))).toEqual(
      new Set(['overflow']),
    );
    // maxViewBytes is the largest request's bytes: every request is at or under the ceiling.
    expect(bounded.maxViewBytes).toBeLessThanOrEqual(20_000);
    expect(bounded.maxViewTokens).toBeLessThan(unbounded.maxViewTokens / 10);
    expect(bounded.orphans).toBe(0);
    expect(bounded.lossless).toBe(true);
  });

  it('says the ceiling and the largest request in bytes in the human report', async () => {
    const result = await cli([
      'replay',
      incident,
      '--threshold',
      '1000000',
      '--max-request-bytes',
      '20000',
    ]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('byte ceiling 20,000');
    expect(result.stdout).toMatch(/largest bytes\s+[\d,]+ bytes; byte ceiling 20,000/);
  });
});

describe('a failed summarizer model', () => {
  let server: Server;
  let env: Record<string, string>;
  const model = 'openai-compatible:broken-model';

  beforeAll(async () => {
    // An OpenAI-compatible endpoint that refuses every request (401 is not retried).
    server = createServer((_request, response) => {
      response.writeHead(401, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: { message: 'invalid api key', type: 'auth' } }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    env = { ORRERY_OPENAI_COMPATIBLE_BASE_URL: `http://127.0.0.1:${port}/v1` };
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('is named as failed in compact, sessions show and its JSON; the digest gets the credit', async () => {
    const db = join(tempDir(), 'orrery.db');
    await json(['import', incident, '--db', db, '--session', 's', '--json']);
    const compacted = await cli(['compact', 's', '--db', db, '--summarizer', model], { env });
    expect(compacted.code).toBe(0);
    expect(compacted.stdout).toMatch(
      new RegExp(`^compacted s: seq 1-\\d+ by digest \\(fallback: ${model} failed: .+\\) in `),
    );
    expect(compacted.stdout).not.toContain(`(${model},`);

    const show = await cli(['sessions', 'show', 's', '--db', db]);
    expect(show.stdout).toMatch(
      /compaction #1 .*, by digest \(fallback: openai-compatible:broken-model failed/,
    );
    expect(show.stdout).not.toMatch(/by openai-compatible:broken-model/);

    const shown = await json<{
      compactions: Array<{ summarizer: string; fallback?: { from: string; reason?: string } }>;
    }>(['sessions', 'show', 's', '--db', db, '--json']);
    expect(shown.compactions).toHaveLength(1);
    expect(shown.compactions[0]?.summarizer).toBe('digest');
    expect(shown.compactions[0]?.fallback?.from).toBe(model);
    expect(shown.compactions[0]?.fallback?.reason).toMatch(/\S/);

    const report = await json<{
      outcome: string;
      summarizer: string;
      usedFallback: boolean;
      fallback?: object;
    }>(['compact', 's', '--db', db, '--summarizer', model, '--retention', '2', '--json'], env);
    expect(report.outcome).toBe('compacted');
    expect(report.summarizer).toBe('digest');
    expect(report.usedFallback).toBe(true);
    expect(report.fallback).toEqual(expect.objectContaining({ from: model }));
  });

  it('is counted in replay: how many attempts failed and fell back, by summarizer', async () => {
    const result = await cli(['replay', incident, '--summarizer', model], { env });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`summarizer ${model} (digest on failure)`);
    expect(result.stdout).toMatch(
      /\n {2}10 summarizer attempts by openai-compatible:broken-model failed and fell back to digest \(first: .+\)\n/,
    );
    const report = await json<ReplayJson>(
      ['replay', incident, '--summarizer', model, '--json'],
      env,
    );
    expect(report.compactions).toHaveLength(10);
    for (const compaction of report.compactions) {
      expect(compaction.summarizer).toBe('digest');
      expect(compaction.fallback?.from).toBe(model);
    }
  });
});

describe('--db and ORRERY_DB', () => {
  const commands = [
    ['sessions', 'list'],
    ['sessions', 'show', 's1'],
    ['sessions', 'export', 's1'],
    ['sessions', 'delete', 's1'],
    ['view', 's1'],
    ['compact', 's1'],
    ['run', 'hello'],
    ['chat'],
  ];
  const modelEnv = {
    ORRERY_MODEL: 'openai-compatible:m',
    ORRERY_OPENAI_COMPATIBLE_BASE_URL: 'http://127.0.0.1:9/v1',
  };

  it('refuses an empty value as a usage error naming the option or variable', async () => {
    for (const command of [...commands, ['replay', incident]]) {
      const result = await cli([...command, '--db', ''], { env: modelEnv });
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/^orrery: CliUsageError: --db is empty: /);
    }
    for (const command of commands) {
      const result = await cli(command, { env: { ...modelEnv, ORRERY_DB: '' } });
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/^orrery: CliUsageError: ORRERY_DB is empty: /);
    }
  });

  it('refuses a URL that is not PostgreSQL, credentials masked, creating no file', () => {
    for (const [command, url] of [
      [['sessions', 'list'], 'mysql://admin:hunter2@db.example/app'],
      [['run', 'hello'], 'http://x'],
      [['replay', incident], 'redis://:s3cret@127.0.0.1:6379/0'],
    ] as const) {
      const directory = scratch();
      const variants: Array<Record<string, string>> = [{ ORRERY_DB: url }, {}];
      for (const env of variants) {
        const args = 'ORRERY_DB' in env ? [...command] : [...command, '--db', url];
        if (command[0] === 'replay' && 'ORRERY_DB' in env) continue; // replay reads --db only
        const result = orrery(args, { cwd: directory, env: { ...modelEnv, ...env } });
        expect(result.code).toBe(2);
        const scheme = url.split(':')[0];
        expect(result.stderr).toContain(`is a ${scheme}:// URL`);
        expect(result.stderr).not.toMatch(/hunter2|s3cret/);
      }
      expect(readdirSync(directory)).toEqual([]);
    }
  });
});

describe('settings are checked before anything is written', () => {
  const modelEnv = {
    ORRERY_MODEL: 'openai-compatible:m',
    ORRERY_OPENAI_COMPATIBLE_BASE_URL: 'http://127.0.0.1:9/v1',
  };

  it('a bad ORRERY_COMPACTION_* value or summarizer model leaves no store behind (run, chat)', async () => {
    const cases = [
      [{ ORRERY_COMPACTION_TOKEN_THRESHOLD: 'abc' }, /ORRERY_COMPACTION_TOKEN_THRESHOLD/],
      [{ ORRERY_COMPACTION_RETENTION_EVENTS: '-1' }, /ORRERY_COMPACTION_RETENTION_EVENTS/],
      [
        { ORRERY_COMPACTION_MODEL: 'openai:gpt-4o' },
        /ModelConfigError: ORRERY_COMPACTION_MODEL="openai:gpt-4o" cannot be used: .*OPENAI_API_KEY/,
      ],
      [{ ORRERY_COMPACTION_MODEL: 'nope' }, /ORRERY_COMPACTION_MODEL/],
    ] as const;
    for (const [settings, message] of cases) {
      for (const command of [['run', '--session', 's', 'hello'], ['chat']]) {
        const directory = tempDir();
        const db = join(directory, 'orrery.db');
        const result = await cli([...command, '--db', db], {
          env: { ...modelEnv, ...settings },
          stdin: 'hello\n',
        });
        expect(result.code).toBe(2);
        expect(result.stderr).toMatch(message);
        expect(result.stderr.trim().split('\n')).toHaveLength(1);
        expect(existsSync(db)).toBe(false);
      }
    }
  });

  it('compact and replay refuse bad settings before touching the store', async () => {
    const directory = tempDir();
    const db = join(directory, 'orrery.db');
    await json(['import', oneMessage(directory), '--db', db, '--session', 's', '--json']);
    const before = (await cli(['sessions', 'show', 's', '--db', db, '--json'])).stdout;
    for (const [args, env, message] of [
      [['compact', 's'], { ORRERY_COMPACTION_RETENTION_EVENTS: 'x' }, /RETENTION_EVENTS/],
      [['compact', 's', '--summarizer', 'openai:gpt-4o'], {}, /--summarizer "openai:gpt-4o"/],
    ] as const) {
      const result = await cli([...args, '--db', db], { env });
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(message);
    }
    expect((await cli(['sessions', 'show', 's', '--db', db, '--json'])).stdout).toBe(before);

    const replayDb = join(directory, 'replay.db');
    for (const [args, env] of [
      [['--summarizer', 'openai:gpt-4o'], {}],
      [[], { ORRERY_COMPACTION_OVERLAP: '-2' }],
      [['--format', 'bogus'], {}],
    ] as const) {
      const result = await cli(['replay', incident, ...args, '--db', replayDb], { env });
      expect(result.code).toBe(2);
    }
    expect(existsSync(replayDb)).toBe(false);
  });

  it('empty --app, --user, --session or session id are usage errors naming them', async () => {
    const directory = tempDir();
    const db = join(directory, 'orrery.db');
    await json(['import', oneMessage(directory), '--db', db, '--session', 's', '--json']);
    for (const [args, name] of [
      [['sessions', 'list', '--app', ''], '--app'],
      [['view', 's', '--user', ''], '--user'],
      [['sessions', 'show', ''], 'session id'],
      [['compact', ''], 'session id'],
      [['run', '--session', '', 'hi'], '--session'],
    ] as const) {
      const result = await cli([...args, '--db', db], { env: modelEnv });
      expect(result.code).toBe(2);
      expect(result.stderr).toBe(`orrery: CliUsageError: ${name} is empty: pass a value\n`);
    }
  });
});

describe('output that reads right', () => {
  it('lists sessions under a header, in aligned columns', async () => {
    const directory = tempDir();
    const db = join(directory, 'orrery.db');
    const file = oneMessage(directory);
    await json(['import', file, '--db', db, '--session', 'a-long-session-id', '--json']);
    await json(['import', incident, '--db', db, '--session', 'b', '--json']);
    const lines = (await cli(['sessions', 'list', '--db', db])).stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^session {12}events {2}updated \(UTC\)$/);
    expect(lines).toHaveLength(3);
    // Counts right-aligned under "events", dates under "updated".
    const eventsEnd = (lines[0] as string).indexOf('events') + 'events'.length;
    for (const line of lines.slice(1)) {
      expect(line.slice(0, eventsEnd)).toMatch(/\d$/);
      expect(line.indexOf('20')).toBe((lines[0] as string).indexOf('updated'));
    }
    expect(lines.some((line) => /^b +308 /.test(line))).toBe(true);
  });

  it('says "1 event", and draws no checkpoint legend when there is no checkpoint', async () => {
    const directory = tempDir();
    const db = join(directory, 'orrery.db');
    await json(['import', oneMessage(directory), '--db', db, '--session', 's', '--json']);
    const show = (await cli(['sessions', 'show', 's', '--db', db])).stdout;
    expect(show).toMatch(/^session s · 1 event · state keys: /);
    expect(show).not.toContain('summarized by the current checkpoint');
    const view = (await cli(['view', 's', '--db', db])).stdout;
    expect(view).toMatch(/^next request for s: 1 event as 1 content, ~\d+ tokens \(estimated: /);

    await cli(['import', incident, '--db', db, '--session', 'big']);
    await cli(['compact', 'big', '--db', db]);
    const compacted = (await cli(['sessions', 'show', 'big', '--db', db])).stdout;
    expect(compacted).toMatch(/^session big · 309 events \(1 compaction\) · /);
    expect(compacted).toContain('│ = summarized by the current checkpoint');
  });

  it('sessions show --json: the session, each compaction and each event', async () => {
    const directory = tempDir();
    const db = join(directory, 'orrery.db');
    await json(['import', incident, '--db', db, '--session', 's', '--json']);
    await cli(['compact', 's', '--db', db, '--retention', '4']);
    const shown = await json<{
      sessionId: string;
      eventCount: number;
      checkpointSeq: number | null;
      compactions: Array<{
        seq: number;
        startSeq: number;
        endSeq: number;
        current: boolean;
        summary: string;
        summarizer: string;
      }>;
      events: Array<{ seq: number; summarized: boolean; author: string }>;
    }>(['sessions', 'show', 's', '--db', db, '--json']);
    expect(shown.sessionId).toBe('s');
    expect(shown.eventCount).toBe(309);
    expect(shown.checkpointSeq).toBe(309);
    expect(shown.compactions).toEqual([
      expect.objectContaining({ seq: 309, startSeq: 1, current: true, summarizer: 'digest' }),
    ]);
    expect(shown.compactions[0]?.summary).toMatch(/^# Conversation digest/);
    expect(shown.events).toHaveLength(308);
    const endSeq = shown.compactions[0]?.endSeq ?? 0;
    for (const event of shown.events) expect(event.summarized).toBe(event.seq <= endSeq);
    expect(shown.events.filter((event) => !event.summarized).length).toBeGreaterThan(0);
  });

  it('view and compact count the same request, and label the trigger figure that differs', async () => {
    const directory = tempDir();
    const db = join(directory, 'orrery.db');
    await json(['import', incident, '--db', db, '--session', 's', '--json']);
    const view = await json<{
      estimatedTokens: number;
      trigger: { tokens: number; basis: string; usageSeq?: number };
    }>(['view', 's', '--db', db, '--json']);
    // The imported transcript recorded the provider's prompt sizes (its own system prompt and
    // tools included): the trigger anchors on them, the request estimate counts what is stored.
    expect(view.trigger.basis).toBe('reported_usage');
    expect(view.trigger.tokens).toBeGreaterThan(view.estimatedTokens);
    const human = (await cli(['view', 's', '--db', db])).stdout;
    expect(human).toContain(
      `~${view.estimatedTokens.toLocaleString('en-US')} tokens (estimated: contents)`,
    );
    expect(human).toContain(
      `(the token trigger counts ${view.trigger.tokens.toLocaleString('en-US')}: the model reported`,
    );
    // An imported transcript's report counts what its recorder sent.
    expect(human).toContain("the recording harness's own instruction and tools included");

    const report = await json<{
      tokensBefore: number;
      requestTokens: { before: number; after: number };
    }>(['compact', 's', '--db', db, '--json']);
    expect(report.requestTokens.before).toBe(view.estimatedTokens);
    expect(report.tokensBefore).toBe(view.trigger.tokens);
    const after = await json<{ estimatedTokens: number }>(['view', 's', '--db', db, '--json']);
    expect(report.requestTokens.after).toBe(after.estimatedTokens);
  });
});
