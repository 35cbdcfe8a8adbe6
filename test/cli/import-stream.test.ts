/**
 * `orrery import` reads files as a stream (docs/architecture.md#edge): a record over
 * `--max-record-mb` is refused naming its line before anything is stored, and the formats that
 * stream (JSONL, JSON arrays, ADK sessions) store the same sessions `orrery sessions export`
 * gives back.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli, tempDir } from './in-process.js';

const line = (record: object) => JSON.stringify(record);
const question = {
  type: 'user',
  sessionId: 's',
  timestamp: '2025-06-01T10:00:00.000Z',
  message: { role: 'user', content: 'Is checkout up?' },
};
const answer = (text: string) => ({
  type: 'assistant',
  timestamp: '2025-06-01T10:00:01.000Z',
  message: { id: 'm1', role: 'assistant', content: [{ type: 'text', text }] },
});

describe('orrery import: streamed', () => {
  it('refuses a record over --max-record-mb naming file and line, storing nothing', async () => {
    const directory = tempDir();
    const db = join(directory, 'o.db');
    const file = join(directory, 'big.jsonl');
    writeFileSync(file, `${line(question)}\n${line(answer('x'.repeat(2 * 1024 * 1024)))}\n`);
    const refused = await cli(['import', file, '--db', db, '--max-record-mb', '1']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('RecordTooLargeError');
    expect(refused.stderr).toContain('big.jsonl, line 2: the record starting at byte');
    expect(refused.stderr).toContain('larger than 1 MiB');
    // Refused by the first pass: the store was never opened.
    expect(existsSync(db)).toBe(false);
    // The default (64 MiB) takes it.
    const imported = await cli(['import', file, '--db', db, '--json']);
    expect(imported.stderr).toBe('');
    expect(JSON.parse(imported.stdout)).toMatchObject({ events: 2, modelCalls: 1 });
  });

  it('--max-record-mb must be a positive integer (exit 2)', async () => {
    const directory = tempDir();
    const file = join(directory, 'a.jsonl');
    writeFileSync(file, `${line(question)}\n${line(answer('yes'))}\n`);
    const result = await cli([
      'import',
      file,
      '--db',
      join(directory, 'o.db'),
      '--max-record-mb',
      '0',
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--max-record-mb must be an integer >= 1');
  });

  it('an exported session imports back as the same events (ADK and orrery formats)', async () => {
    const directory = tempDir();
    const db = join(directory, 'o.db');
    const file = join(directory, 'a.jsonl');
    writeFileSync(file, `${line(question)}\n${line(answer('yes'))}\n`);
    expect((await cli(['import', file, '--db', db, '--session', 'first'])).code).toBe(0);
    const original = await cli(['sessions', 'export', 'first', '--db', db, '--format', 'orrery']);
    for (const format of ['adk', 'adk-snake', 'orrery']) {
      const exported = await cli(['sessions', 'export', 'first', '--db', db, '--format', format]);
      const path = join(directory, `export-${format}.json`);
      writeFileSync(path, exported.stdout);
      const back = await cli(['import', path, '--db', db, '--session', `back-${format}`, '--json']);
      expect(back.stderr).toBe('');
      expect(JSON.parse(back.stdout)).toMatchObject({ format: 'adk', events: 2 });
      const again = await cli([
        'sessions',
        'export',
        `back-${format}`,
        '--db',
        db,
        '--format',
        'orrery',
      ]);
      const events = (text: string) =>
        (JSON.parse(text) as { events: Array<Record<string, unknown>> }).events.map(
          ({ content, author, timestamp }) => ({ content, author, timestamp }),
        );
      expect(events(again.stdout)).toEqual(events(original.stdout));
    }
  });
});
