/** `orrery replay --json`: each object says which transcript (file, run, stored session) it is. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { cli, tempDir } from './in-process.js';

const run = (task: number, question: string) => ({
  task_id: task,
  trial: 0,
  traj: [
    { role: 'system', content: 'You are an airline agent.' },
    { role: 'user', content: question },
    { role: 'assistant', content: `Done: ${question}` },
  ],
});

describe('orrery replay --json', () => {
  it('names the file and run of every object, and the stored session with --db', async () => {
    const directory = tempDir();
    const runs = join(directory, 'runs.json');
    writeFileSync(runs, JSON.stringify([run(1, 'change my flight'), run(2, 'cancel it')]));
    const chat = join(directory, 'chat.json');
    writeFileSync(chat, JSON.stringify([{ role: 'user', content: 'hi' }]));

    const several = await cli(['replay', runs, chat, '--json']);
    expect(several.code).toBe(0);
    const objects = JSON.parse(several.stdout);
    expect(
      objects.map((object: { file: string; run?: number }) => [object.file, object.run]),
    ).toEqual([
      [runs, 0],
      [runs, 1],
      [chat, undefined],
    ]);
    expect(objects[0]).not.toHaveProperty('sessionId');

    const db = join(directory, 'replays.db');
    const one = JSON.parse(
      (await cli(['replay', runs, '--run', '1', '--db', db, '--json'])).stdout,
    );
    expect(one).toMatchObject({ file: runs, run: 1, events: 2 });
    const list = JSON.parse((await cli(['sessions', 'list', '--db', db, '--json'])).stdout);
    expect(list.map((session: { sessionId: string }) => session.sessionId)).toEqual([
      one.sessionId,
    ]);
  });
});

describe('orrery replay --progress', () => {
  it('prints a line at each tenth of the events on stderr, the JSON untouched on stdout', async () => {
    const file = join('examples', 'incident-session.jsonl');
    const plain = await cli(['replay', file, '--json']);
    expect(plain.code).toBe(0);
    // Piped (stderr is no terminal) and without the flag: nothing on stderr.
    expect(plain.stderr).toBe('');

    const shown = await cli(['replay', file, '--json', '--progress']);
    expect(shown.code).toBe(0);
    expect(JSON.parse(shown.stdout)).toEqual(JSON.parse(plain.stdout));
    const lines = shown.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(10);
    const events = JSON.parse(plain.stdout).events as number;
    expect(lines[0]).toMatch(
      new RegExp(
        `^replaying incident-session\\.jsonl: \\d+/${events} events, \\d+ compactions? \\(10%\\)$`,
      ),
    );
    expect(lines[9]).toContain(`${events}/${events} events`);
    expect(lines[9]).toMatch(/\(100%\)$/);
  }, 60_000);
});

describe('orrery replay --threshold 0', () => {
  const chat = () => {
    const file = join(tempDir(), 'chat.json');
    const turns = Array.from({ length: 30 }, (_, index) => [
      { role: 'user', content: `question ${index}: ${'why is checkout slow? '.repeat(20)}` },
      { role: 'assistant', content: `answer ${index}: ${'the cache is cold. '.repeat(20)}` },
    ]).flat();
    writeFileSync(file, JSON.stringify(turns));
    return file;
  };

  it('replays with compaction off: every request whole, the header says so', async () => {
    const file = chat();
    const compacted = JSON.parse(
      (await cli(['replay', file, '--threshold', '500', '--json'])).stdout,
    );
    expect(compacted.compactions.length).toBeGreaterThan(0);

    const off = await cli(['replay', file, '--threshold', '0', '--json']);
    expect(off).toMatchObject({ code: 0, stderr: '' });
    const report = JSON.parse(off.stdout);
    expect(report.compactions).toEqual([]);
    expect(report.tokens.withCompaction).toBe(report.tokens.withoutCompaction);
    expect(report.modelCalls).toBe(30);

    const text = await cli(['replay', file, '--threshold', '0']);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('token trigger off');
    expect(text.stdout).toContain('Compactions: none (token trigger off)');
  });

  it('keeps the sliding window when --interval is given', async () => {
    const report = JSON.parse(
      (await cli(['replay', chat(), '--threshold', '0', '--interval', '5', '--json'])).stdout,
    );
    expect(report.compactions.length).toBeGreaterThan(0);
    expect(
      report.compactions.every(
        (compaction: { trigger: string }) => compaction.trigger === 'sliding_window',
      ),
    ).toBe(true);
  });

  it('refuses a byte ceiling with compaction off: a usage error naming both flags', async () => {
    const result = await cli(['replay', chat(), '--threshold', '0', '--max-request-bytes', '2000']);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('CliUsageError');
    expect(result.stderr).toContain('--max-request-bytes 2000');
    expect(result.stderr).toContain('--threshold 0');
  });
});

describe('orrery replay is deterministic', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  /** Ids drawn from `letter`-only or digit-only UUIDs: the two ends of a random id's mix. */
  const ids = (hex: string) => {
    let count = 0;
    return () => {
      count++;
      const tail = `${hex.repeat(12)}${count}`.slice(-12);
      return `${hex.repeat(8)}-${hex.repeat(4)}-4${hex.repeat(3)}-8${hex.repeat(3)}-${tail}` as const;
    };
  };

  it('gives the same report for the same transcript and flags, whatever ids are drawn', async () => {
    // Random ids (imported events, compaction events) must not reach what replay measures: the
    // byte ceiling truncates outputs and summaries here, and their marker once named the id.
    const args = [
      'replay',
      'examples/incident-session.jsonl',
      '--threshold',
      '1000000',
      '--max-request-bytes',
      '20000',
      '--json',
    ];
    vi.spyOn(crypto, 'randomUUID').mockImplementation(ids('0'));
    const first = await cli(args);
    vi.spyOn(crypto, 'randomUUID').mockImplementation(ids('a'));
    const second = await cli(args);
    expect(first).toMatchObject({ code: 0, stderr: '' });
    expect(second.stdout).toBe(first.stdout);
    const report = JSON.parse(first.stdout);
    expect(report.compactions.length).toBeGreaterThan(0);
    expect(report.maxViewBytes).toBeLessThanOrEqual(20_000);
  }, 120_000);
});
